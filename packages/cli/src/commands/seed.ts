import { Engine } from '../engine/engine.js';
import { CliError } from '../failure.js';
import { progress, terminalSafe, writeLine, type Io } from '../output.js';
import { isEmptyRoot } from '../root.js';
import { seedDemo } from '../seed/demo.js';

/** `sessref seed [--force]`: write the demo sessions into the root. */
export async function seedCommand(root: string, io: Io, options: { force: boolean }): Promise<void> {
  if (!options.force && !isEmptyRoot(root)) {
    throw new CliError('ROOT_NOT_EMPTY', `${root} is not empty`, 'seed an empty root, or pass --force to add the demo sessions');
  }
  const ids = await seedRoot(root, io);
  writeLine(io.stdout, terminalSafe(`seeded ${ids.length} sessions into ${root}`));
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
