#!/usr/bin/env node
/**
 * `npm run build`'s last step: the `sessref` command as one bundle,
 * `packages/cli/bundle/`, built from `packages/cli/dist/` (run after `tsc -b`).
 *
 * Why: a fresh `sessref` spent most of its time loading some three hundred
 * modules, each found, read and linked on its own; the bundle holds the same
 * code in a few dozen chunks, one per command's needs (the command table's
 * lazy imports become chunk boundaries), which cuts a command's CPU time by
 * about a third (docs/benchmarks.md, section 7). What every command loads,
 * and what every command that reads a root loads, are a chunk each (see
 * groupsOf).
 *
 * A bundle moves every module, so what a module found relative to its own
 * file must still be found. Each such use is rewritten here at bundle time,
 * and any other is refused, so a new one is handled on purpose:
 * - `createRequire(import.meta.url)('….json')` (a package reading its own or
 *   another's manifest): the manifest it would have read, inlined;
 * - `new URL('…', import.meta.url)` in the CLI's own modules (its manifest,
 *   its web assets): the same file, relative to the bundle, which sits beside
 *   `dist/` in the CLI's folder wherever the package is installed;
 * - `new URL('..', import.meta.url)` naming a folder that holds the module
 *   itself (the transcript readers digest their own code to stamp their
 *   caches): the bundle's folder, which now holds that code;
 * - `createRequire(import.meta.url)('node:…')` (a built-in module loaded when
 *   first used): kept as it is, since a built-in is found from anywhere.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { build } from 'rolldown';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'packages/cli');
const ENTRY = join(CLI, 'dist/bin.js');
const OUT = join(CLI, 'bundle');

/** Loaded only on Windows (dsh's file locks call kernel32 through it), and a native module: left to Node to find. */
const EXTERNAL = ['koffi'];

const REQUIRED_JSON = /createRequire\(import\.meta\.url\)\((["'])([^"']+\.json)\1\)/g;
const FILE_URL = /new URL\((["'])([^"']*)\1, import\.meta\.url\)/g;
const REQUIRED_BUILTIN = /createRequire\(import\.meta\.url\)\((["'])node:[a-z_/]+\1\)/g;

/** A `new URL(target, import.meta.url)` of the module at `id`, as the bundle must spell it. */
function rebasedUrl(id, target) {
  const absolute = resolve(dirname(id), target);
  if (id.startsWith(`${absolute}${sep}`)) return 'new URL("./", import.meta.url)';
  if (!id.startsWith(`${CLI}${sep}`) || !absolute.startsWith(`${CLI}${sep}`)) {
    throw new Error(`${relative(ROOT, id)} reads ${target} relative to its own file, outside the CLI's folder: bundle-cli.mjs does not know where that is once bundled`);
  }
  const rebased = relative(OUT, absolute).split(sep).join('/') + (target.endsWith('/') ? '/' : '');
  return `new URL(${JSON.stringify(rebased)}, import.meta.url)`;
}

const keepFileLookups = {
  name: 'sessref:keep-file-lookups',
  transform(code, id) {
    // Files only: the bundler's own runtime module is no file and knows where it is.
    if (!code.includes('import.meta') || !existsSync(id)) return null;
    const rewrites = [];
    const marked = code
      .replace(REQUIRED_JSON, (_, _quote, specifier) => mark(rewrites, `(${readFileSync(createRequire(id).resolve(specifier), 'utf8').trim()})`))
      .replace(FILE_URL, (_, _quote, target) => mark(rewrites, rebasedUrl(id, target)))
      .replace(REQUIRED_BUILTIN, (kept) => mark(rewrites, kept));
    if (marked.includes('import.meta')) {
      throw new Error(`${relative(ROOT, id)} uses import.meta in a way bundle-cli.mjs does not rewrite: teach it (see its header)`);
    }
    return { code: marked.replace(MARK, (_, index) => rewrites[Number(index)]), map: null };
  },
};

/**
 * Node's built-in modules taken with `process.getBuiltinModule` instead of
 * `import`. An import of a built-in goes through its ES module facade, which
 * reads every export once, lazy ones included: importing `node:fs` loads
 * fs/promises, file streams, readline and worker threads, importing
 * `node:util` its diff, none of which a read command uses (docs/benchmarks.md,
 * section 7's notes, give what it saved). A built-in's exports are the same objects
 * either way. The entry keeps its imports: it checks the Node version before
 * anything else runs, and `process.getBuiltinModule` is newer than some it
 * must refuse clearly.
 */
const takeBuiltinsDirectly = {
  name: 'sessref:take-builtins-directly',
  renderChunk(code, chunk) {
    if (chunk.isEntry) return null;
    const taken = code
      .replace(/^import \{([^}]*)\} from "(node:[a-z_/]+)";$/gm, (kept, names, builtin) =>
        // A built-in's `default` export is the module itself, which destructuring would not give.
        /\bdefault\b/.test(names) ? kept : `const {${names.replaceAll(' as ', ': ')}} = process.getBuiltinModule("${builtin}");`,
      )
      .replace(/^import (?:\* as )?([\w$]+) from "(node:[a-z_/]+)";$/gm, (_, name, builtin) => `const ${name} = process.getBuiltinModule("${builtin}");`);
    const left = /^import .* from "node:.*$/m.exec(taken);
    if (left !== null) throw new Error(`${chunk.fileName}: bundle-cli.mjs does not rewrite the import ${left[0]} (see takeBuiltinsDirectly)`);
    return { code: taken, map: null };
  },
};

/**
 * The MCP SDK's platform shim for Node, replaced in the bundle. The SDK takes
 * two things from `@modelcontextprotocol/server/_shims`: Node's `process`, and
 * the JSON Schema validator a server uses by default, which on Node is ajv's
 * (and ajv-formats'): a module graph of some hundred modules, all evaluated
 * when the SDK is imported, about 18 ms of wall time from spawning
 * `sessref mcp` to its first answer (docs/benchmarks.md, section 7's notes). The SDK asks that validator for
 * two things only, a form elicitation's answer and `fromJsonSchema`, and
 * sessref's server does neither (one prompt, resources, no tools), so its
 * validator here refuses, naming why, and loads nothing.
 */
const MCP_SHIMS = '@modelcontextprotocol/server/_shims';
const mcpShims = {
  name: 'sessref:mcp-shims',
  resolveId: (id) => (id === MCP_SHIMS ? `\0${MCP_SHIMS}` : null),
  load: (id) =>
    id === `\0${MCP_SHIMS}`
      ? `export const process = globalThis.process;
export class DefaultJsonSchemaValidator {
  getValidator() {
    throw new Error('sessref mcp validates no JSON Schema (it elicits nothing and has no tools): the bundle leaves the validator of the SDK out');
  }
}`
      : null,
};

/** Stands for the `rewrites.length`-th rewrite until every use of import.meta has been checked. */
function mark(rewrites, replacement) {
  rewrites.push(replacement);
  return `@@bundle-cli:${rewrites.length - 1}@@`;
}

const MARK = /@@bundle-cli:(\d+)@@/g;

if (!existsSync(ENTRY)) throw new Error(`${relative(ROOT, ENTRY)} is missing: run tsc -b packages/cli first`);
rmSync(OUT, { recursive: true, force: true });
const input = { input: ENTRY, platform: 'node', external: EXTERNAL, plugins: [mcpShims, keepFileLookups, takeBuiltinsDirectly], logLevel: 'warn' };
// Pure ASCII source, without the comments only readers of the sources need (legal notices stay): Node decodes a module
// to a one-byte string then, half the size of the two-byte one a single other character makes of the whole chunk.
const output = { dir: OUT, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js', charset: 'ascii', comments: { legal: true, annotation: false, jsdoc: false } };
const READ_PATH = join(CLI, 'dist/commands/session-root.js');
const SHELL = join(CLI, 'dist/cli.js');
const firstPass = await build({ ...input, write: false, output });
const { shellModules, readModules } = groupsOf(firstPass.output);
await build({
  ...input,
  // A group moves modules between chunks, so an entry's own chunk may export more than the entry did.
  preserveEntrySignatures: 'allow-extension',
  // The group loads what the read path imports lazily along with the rest of it, on purpose.
  onLog: (level, log, handler) => (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' ? undefined : handler(level, log)),
  output: {
    ...output,
    codeSplitting: {
      includeDependenciesRecursively: false,
      groups: [{ name: 'cli', test: (id) => shellModules.has(id) }, { name: 'read', test: (id) => readModules.has(id) }],
    },
  },
});

/**
 * Two chunks every command shares, from a first pass's chunk graph.
 *
 * The command line's shell: every command loads `SHELL` (what `--version` and
 * `--help` stop at), and the lazy imports' chunking split what it imports
 * into some ten chunks of a few hundred bytes each (a module the lazily
 * loaded commands also import gets a chunk of its own), each found, read and
 * linked on its own. What loading `SHELL` loads goes into one chunk.
 *
 * The read path: every command that reads a root (`list`, `show`, `mention`,
 * `search`, `prepare`, `mcp`, the inspector) opens it through `READ_PATH`,
 * and the lazy imports' chunking alone made that some forty small chunks.
 * What loading `READ_PATH` loads beyond the shell goes into one chunk.
 *
 * docs/benchmarks.md, section 7's notes, give what each saved (paired runs
 * of the bundle with and without the group).
 */
function groupsOf(chunks) {
  const byFile = new Map(chunks.filter((chunk) => chunk.type === 'chunk').map((chunk) => [chunk.fileName, chunk]));
  const holding = (id) => {
    const chunk = [...byFile.values()].find((candidate) => candidate.moduleIds.includes(id));
    if (chunk === undefined) throw new Error(`${relative(ROOT, id)} is in no chunk of the bundle: bundle-cli.mjs names it as the read path or the shell, update it`);
    return chunk;
  };
  // The chunks loading a module's chunk loads: its static imports, transitively (built-ins and externals are imports of no chunk).
  const loadedWith = (module) => {
    const loaded = new Set();
    for (const pending = [holding(module)]; pending.length > 0; ) {
      const next = pending.pop();
      if (loaded.has(next)) continue;
      loaded.add(next);
      pending.push(...next.imports.flatMap((file) => byFile.get(file) ?? []));
    }
    return loaded;
  };
  const modulesOf = (loaded) => new Set([...loaded].flatMap((chunk) => chunk.moduleIds));
  const shell = loadedWith(SHELL);
  return { shellModules: modulesOf(shell), readModules: modulesOf([...loadedWith(READ_PATH)].filter((chunk) => !shell.has(chunk))) };
}
