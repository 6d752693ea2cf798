import type { Context } from '@deepseek-ai/cordis';
import { SeedConflictError, seedDemo as seedHost } from '@sessref/host';
import { CliError } from '../failure.js';

/** `@sessref/host`'s demo seeding, its refusal of a root that already holds a demo id as a usage error. */
export async function seedDemo(ctx: Context, onProgress?: (done: number, total: number) => void): Promise<string[]> {
  try {
    return await seedHost(ctx, onProgress);
  } catch (error) {
    if (error instanceof SeedConflictError) throw new CliError('SEED_EXISTS', error.message, 'seed a root without the demo sessions');
    throw error;
  }
}
