/**
 * Suites run in child processes: every measurement starts from a fresh heap
 * and a freshly booted host, and one suite's garbage never inflates the
 * next one's timings or memory. A child prints progress on stderr (passed
 * through) and exactly one JSON document on stdout.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Run `bench/suites/<suite>.mjs` with `args` and resolve its JSON result. */
export function runSuite(suite, args = []) {
  const script = fileURLToPath(new URL(`../suites/${suite}.mjs`, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', script, ...args.map(String)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`suite ${suite} ${args.join(' ')} exited with ${code}`));
      try {
        resolve(JSON.parse(stdout));
      } catch (error) {
        reject(new Error(`suite ${suite} printed no JSON result: ${error.message}`));
      }
    });
  });
}

/** Child side: parse `--name value` pairs. */
export function parseArgs(argv = process.argv.slice(2)) {
  const options = {};
  for (let index = 0; index < argv.length; index += 2) {
    const name = argv[index];
    if (!name.startsWith('--') || index + 1 >= argv.length) throw new Error(`bad argument "${name}"`);
    options[name.slice(2)] = argv[index + 1];
  }
  return options;
}

/** Child side: hand the result to the parent. */
export function emitResult(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Progress line on stderr, so stdout stays machine-readable. */
export function progress(message) {
  process.stderr.write(`[bench] ${message}\n`);
}
