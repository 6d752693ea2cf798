import { SeedConflictError } from '@sessref/host';
import type { Engine } from '../engine/engine.js';
import { CliError } from '../failure.js';

/** `@sessref/host`'s demo seeding, its refusal of a root that already holds a demo id as a usage error. */
export async function seedDemo(engine: Engine, onProgress?: (done: number, total: number) => void): Promise<string[]> {
  try {
    return await engine.seedDemo(onProgress);
  } catch (error) {
    if (error instanceof SeedConflictError) throw new CliError('SEED_EXISTS', error.message, 'seed a root without the demo sessions');
    throw error;
  }
}
