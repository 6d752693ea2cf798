import type { Context } from '@deepseek-ai/cordis';
import { SeedConflictError, seedDemo as seedHost } from '@sessref/host';
import { CliError, EXIT_USAGE } from '../errors.js';

/** `@sessref/host`'s demo seeding, its refusal of a root that already holds a demo id as a usage error. */
export async function seedDemo(ctx: Context, onProgress?: (done: number, total: number) => void): Promise<string[]> {
  try {
    return await seedHost(ctx, onProgress);
  } catch (error) {
    if (error instanceof SeedConflictError) throw new CliError(error.message, EXIT_USAGE, 'SEED_EXISTS', 'seed a root without the demo sessions');
    throw error;
  }
}
