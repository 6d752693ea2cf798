/**
 * @sessref/test-support: the harness the dsh and CLI suites share, over the
 * REAL DeepSeek Harness host packages (see host.ts). Never published.
 * @module @sessref/test-support
 */
export * from './host.js';
export * from './special-files.js';
