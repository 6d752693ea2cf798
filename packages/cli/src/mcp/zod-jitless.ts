/**
 * Zod's compiled parsers off, before the MCP SDK builds its schemas: the
 * server imports this module first. At an object schema's first parse zod
 * generates a parser for it with `new Function`, which pays off over many
 * parses; a server that answers a few requests a session only pays for the
 * code generation (the SDK validates every request and result through a
 * schema of its own). The parse is the same either way: zod documents the
 * switch for hosts that forbid code generation.
 */
import { config } from 'zod';

config({ jitless: true });
