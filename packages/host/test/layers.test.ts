/**
 * The host's named layers: a recipe mounts them in order, refuses two of
 * one role before mounting anything, and a layer that fails takes down what
 * the layers before it mounted. `bootHost` is such a recipe: the services
 * it promises are there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '@deepseek-ai/cordis';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CheckedJsonlPersistence,
  bootHost,
  bootLayers,
  dshPersistence,
  pluginLayer,
  queryEngine,
  referencePlugin,
  sessionServices,
  titleIndex,
  type HostLayer,
} from '@sessref/host';

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

async function tempRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'sessref-layers-'));
  roots.push(root);
  return root;
}

/** A layer that records when it is mounted and when what it mounted is disposed. */
function recording(name: string, log: string[]): HostLayer {
  return pluginLayer(name, {
    name,
    apply(ctx) {
      log.push(`mount ${name}`);
      ctx.effect(() => () => void log.push(`dispose ${name}`), name);
    },
  });
}

/**
 * The services a host holds, as one value: each test states the whole set a
 * recipe must give, so a service that appears or goes missing fails it.
 */
function servicesOf(ctx: Context) {
  const persistence = ctx.get('sessionPersistence');
  return {
    sessions: ctx.get('sessions') !== undefined,
    agents: ctx.get('agents') !== undefined,
    persistence: persistence === undefined ? 'none' : persistence instanceof CheckedJsonlPersistence ? 'strict' : 'dsh',
    sessionQuery: ctx.get('sessionQuery') !== undefined,
    referenceCatalog: ctx.get('sessionReferenceCatalog') !== undefined,
    contentSearch: ctx.get('sessionReferenceResolver')?.service.contentSearch,
  };
}

describe('bootLayers', () => {
  it('mounts the layers in order and disposes them with the root fiber', async () => {
    const log: string[] = [];
    const ctx = await bootLayers([recording('first', log), recording('second', log)]);
    expect(log).toEqual(['mount first', 'mount second']);
    await ctx.fiber.dispose();
    expect(log.slice(2).sort()).toEqual(['dispose first', 'dispose second']);
  });

  it('refuses two layers of one role before mounting anything', async () => {
    const log: string[] = [];
    const root = await tempRoot();
    await expect(bootLayers([recording('first', log), dshPersistence({ root }), dshPersistence({ root })])).rejects.toThrow(
      'two "persistence" layers',
    );
    expect(log).toEqual([]);
  });

  it('disposes what was mounted when a later layer fails, and throws that layer\'s error as it is', async () => {
    const log: string[] = [];
    const failure = new Error('the third layer cannot start');
    const failing: HostLayer = { name: 'failing', mount: () => Promise.reject(failure) };
    await expect(bootLayers([recording('first', log), recording('second', log), failing])).rejects.toBe(failure);
    expect(log.slice(0, 2)).toEqual(['mount first', 'mount second']);
    expect(log.slice(2).sort()).toEqual(['dispose first', 'dispose second']);
  });

  it('gives a host of the layers a recipe picks exactly their services', async () => {
    const root = await tempRoot();
    const ctx = await bootLayers([sessionServices, dshPersistence({ root, writeBatchMaxDelayMs: 1 }), queryEngine(), referencePlugin()]);
    try {
      expect(servicesOf(ctx)).toEqual({
        sessions: true, agents: true, persistence: 'dsh', sessionQuery: true, referenceCatalog: false, contentSearch: false,
      });
    } finally {
      await ctx.fiber.dispose();
    }
  });
});

describe('bootHost', () => {
  it('is the full recipe: strict persistence, the title index and the plugin with content search on', async () => {
    const root = await tempRoot();
    const ctx = await bootHost({ root });
    try {
      expect(servicesOf(ctx)).toEqual({
        sessions: true, agents: true, persistence: 'strict', sessionQuery: true, referenceCatalog: true, contentSearch: true,
      });
    } finally {
      await ctx.fiber.dispose();
    }
  });

  it('takes a title index layer once: a second is refused', async () => {
    const root = await tempRoot();
    await expect(bootLayers([sessionServices, titleIndex({ root, persist: false, watch: false }), titleIndex({ root, persist: false, watch: false })])).rejects.toThrow(
      'two "title index" layers',
    );
  });
});
