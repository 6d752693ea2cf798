import { Engine } from '../engine/engine.js';
import { CliError } from '../failure.js';
import { progress, terminalSafe, writeLine, type Io } from '../output.js';
import { seedDemo } from '../seed/demo.js';
import type { OpenedRoot } from './session-root.js';

/**
 * `sessref seed [--force]`: write the demo sessions into the root, which
 * `openRoot` resolved for a run that seeds (the demo root, unless the user
 * names another; a named root must exist). It must be empty: a folder with
 * anything in it is written to only with `--force`.
 */
export async function seedCommand({ root, state }: OpenedRoot, io: Io, options: { force: boolean }): Promise<void> {
  if (!options.force && state !== 'missing' && state !== 'empty') {
    throw new CliError('ROOT_NOT_EMPTY', `${root.path} is not empty`, 'seed an empty root, or pass --force to add the demo sessions');
  }
  const ids = await seedRoot(root.path, io);
  writeLine(io.stdout, terminalSafe(`seeded ${ids.length} sessions into ${root.path}`));
}

async function seedRoot(root: string, io: Io): Promise<string[]> {
  const spinner = progress(io, 'seeding demo sessions');
  const engine = await Engine.open({ root });
  try {
    return await seedDemo(engine, (done, total) => spinner.update(`seeding demo sessions ${done}/${total}`));
  } finally {
    spinner.stop();
    await engine.close();
  }
}
