/**
 * Type tests (checked by `tsc -b`, run by nothing): a command row's handler
 * gets exactly what its row declares it needs, and its flags with the types
 * its options give them.
 */
import { expectTypeOf } from 'vitest';
import { defineCommand } from '../src/commands/command.js';
import type { OpenedRoot } from '../src/commands/session-root.js';
import type { Engine } from '../src/engine/engine.js';

defineCommand({
  name: 'engine-row',
  summary: '',
  description: '',
  operands: [{ name: 'ID', needs: 'an id' }, { name: 'QUERY' }],
  options: { target: { description: '', required: true }, limit: { description: '' }, force: { description: '' } },
  examples: [],
  needs: 'engine',
  engine: (flags) => {
    expectTypeOf(flags.limit).toEqualTypeOf<number | undefined>();
    return {};
  },
  run: ({ operands, flags, engine, opened }) => {
    expectTypeOf(engine).toEqualTypeOf<Engine>();
    expectTypeOf(opened).toEqualTypeOf<OpenedRoot>();
    expectTypeOf(operands.ID).toEqualTypeOf<string>();
    expectTypeOf(operands.QUERY).toEqualTypeOf<string | undefined>();
    // A required option is a string; a flag is a boolean; a global one is always there.
    expectTypeOf(flags.target).toEqualTypeOf<string>();
    expectTypeOf(flags.force).toEqualTypeOf<boolean>();
    expectTypeOf(flags.json).toEqualTypeOf<boolean>();
  },
});

defineCommand({
  name: 'root-row',
  summary: '',
  description: '',
  operands: [],
  options: {},
  examples: [],
  needs: 'root',
  run: (call) => {
    expectTypeOf(call.opened).toEqualTypeOf<OpenedRoot>();
    // @ts-expect-error a row that needs the root only gets no engine
    void call.engine;
  },
});

defineCommand({
  name: 'plain-row',
  summary: '',
  description: '',
  operands: [],
  options: {},
  examples: [],
  run: (call) => {
    // @ts-expect-error a row that needs nothing gets no root
    void call.opened;
    // @ts-expect-error an option the row does not declare is not among its flags
    void call.flags.target;
  },
});
