/**
 * Long titles do not break the CLI's layouts (#26, item 6): tables and
 * headings cut a title, a label or a path with an ellipsis (to a fixed cap
 * off a terminal, and to the terminal's width on one), measured in terminal
 * columns; `--json` keeps the full text. The sessions are written with the
 * real dsh persistence, as another writer would log them.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionId } from '@deepseek-ai/dsh-session';
import { formatSessionReferenceMention } from '@sessref/core';
import { appendExchange, setTitle } from '@sessref/test-support';
import { main } from '../src/cli';
import { PATH_COLUMNS, TITLE_COLUMNS, cut, displayWidth, rendered, styleFor, table, terminalSafe } from '../src/output';
import { emptyRoot, hostOf, ok, openEngineOnHost, removeTemps, requireBuild, tempDir } from './support';

const LONG = `A title someone pasted a whole issue into ${'and then some more words '.repeat(200)}`.slice(0, 5000);
const WIDE = '長'.repeat(5000);
const DEEP_CWD = `/home/dev/${'nested/'.repeat(40)}webapp`;

let root: string;

beforeAll(async () => {
  requireBuild();
  root = await emptyRoot('sessref-long-titles-');
  await ok(['seed', '--root', root]);
  const cache = await tempDir('sessref-long-titles-cache-');
  process.env.SESSREF_CACHE_DIR = cache;
  const engine = await openEngineOnHost({ root, indexFile: join(cache, 'unused.json') });
  try {
    const sessions = hostOf(engine).sessions;
    for (const [id, title, cwd] of [['long-title', LONG, '/home/dev/webapp'], ['wide-title', WIDE, DEEP_CWD]] as const) {
      const session = sessions.create(SessionId(id), { meta: { cwd, createdAt: Date.now() - 30_000 } });
      appendExchange(session, { user: `Notes about zanzibar in ${id}.`, assistant: 'Noted.' });
      // As another writer logged it: no title rule of sessref's applied.
      setTitle(session, title, { verbatim: true });
      await sessions.flush(session);
    }
  } finally {
    await engine.close();
  }
});

afterAll(removeTemps);

/** Run in process; stdout a terminal `columns` wide when given, else a pipe. */
async function run(argv: string[], columns?: number): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const stream = (append: (text: string) => void, terminal: boolean) =>
    ({ isTTY: terminal, ...(terminal ? { columns } : {}), write: (text: string) => (append(text), true) }) as unknown as NodeJS.WritableStream;
  const io = { stdout: stream((text) => (stdout += text), columns !== undefined), stderr: stream((text) => (stderr += text), false), env: { NO_COLOR: '1' } };
  const code = await main([...argv, '--root', root], io);
  return { code, stdout, stderr };
}

function widest(text: string): number {
  return Math.max(...text.trimEnd().split('\n').map(displayWidth));
}

describe('sessref list with a 5,000-character title', () => {
  it('off a terminal, cuts the title to the fixed cap with an ellipsis, and no other row is padded to it', async () => {
    const { code, stdout } = await run(['list']);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    const row = lines.find((line) => line.startsWith('long-title'))!;
    expect(row).toContain(`${LONG.slice(0, TITLE_COLUMNS - 1)}…`);
    expect(row).not.toContain(LONG.slice(0, TITLE_COLUMNS));
    // ID, SOURCE, TITLE, CWD, AGE: the title and the path at their caps, the rest short.
    expect(widest(stdout)).toBeLessThanOrEqual(TITLE_COLUMNS + PATH_COLUMNS + 60);
    expect(stdout.length).toBeLessThan(3_000);
  });

  it('cuts a CJK title by display width, two columns a character, and a deep cwd at its start', async () => {
    const row = (await run(['list'])).stdout.split('\n').find((line) => line.startsWith('wide-title'))!;
    const half = Math.floor((TITLE_COLUMNS - 1) / 2);
    expect(row).toContain(`${'長'.repeat(half)}…`);
    expect(row).not.toContain('長'.repeat(half + 1));
    expect(row).toContain(`…${DEEP_CWD.slice(-(PATH_COLUMNS - 1))}`);
  });

  it.each([80, 120])('on a terminal %i columns wide, every line fits it', async (columns) => {
    const { stdout } = await run(['list'], columns);
    expect(widest(stdout)).toBeLessThanOrEqual(columns);
    // Every session is dsh's: the SOURCE column, the same on every row, goes before a title is cut.
    expect(stdout).toMatch(/^ID +TITLE +CWD +AGE$/m);
    expect(stdout).toMatch(/^long-title +A title someone/m);
  });

  it('on a terminal too narrow for the other columns, the title and the path keep 16 columns each', async () => {
    const { stdout } = await run(['list'], 40);
    expect(stdout).toMatch(/^long-title +A title someone… {2}\/home\/dev\/webapp {2}/m);
    expect(stdout).toMatch(/^wide-title +長長長長長長長… {3}…d\/nested\/webapp {2}/m);
  });

  it('keeps the full title under --json', async () => {
    const sessions = JSON.parse((await run(['list', '--json'])).stdout) as { sessionId: string; title: string; cwd: string }[];
    expect(sessions.find((s) => s.sessionId === 'long-title')!.title).toBe(LONG);
    expect(sessions.find((s) => s.sessionId === 'wide-title')).toMatchObject({ title: WIDE, cwd: DEEP_CWD });
  });
});

describe('other tables and headings', () => {
  it('list --target cuts the label but keeps the mention whole, to be copied', async () => {
    const { stdout } = await run(['list', '--target', 'scratchpad']);
    const row = stdout.split('\n').find((line) => line.startsWith('A title someone'))!;
    expect(row).toContain(`${LONG.slice(0, TITLE_COLUMNS - 1)}… `);
    expect(row).toContain(formatSessionReferenceMention({ sessionId: 'long-title', label: LONG }));
  });

  it('show cuts its heading (to the terminal on one) and keeps the title under --json', async () => {
    expect((await run(['show', 'long-title'])).stdout.split('\n')[0]).toBe(`${LONG.slice(0, TITLE_COLUMNS - 1)}…`);
    expect((await run(['show', 'long-title'], 100)).stdout.split('\n')[0]).toBe(`${LONG.slice(0, 99)}…`);
    expect((JSON.parse((await run(['show', 'long-title', '--json'])).stdout) as { title: string }).title).toBe(LONG);
  });

  it('search cuts the label column', async () => {
    const { code, stdout } = await run(['search', 'zanzibar'], 100);
    expect(code).toBe(0);
    expect(stdout).toContain('long-title');
    expect(widest(stdout)).toBeLessThanOrEqual(100);
    expect(stdout).not.toContain(LONG.slice(0, TITLE_COLUMNS));
  });

  it("prepare's reference line cuts the cited session's label (the snapshot the model gets keeps it)", async () => {
    const mention = formatSessionReferenceMention({ sessionId: 'long-title', label: LONG });
    const { code, stdout } = await run(['prepare', '--target', 'scratchpad', `see ${mention}`]);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^${LONG.slice(0, TITLE_COLUMNS - 1)}… \\(long-title\\) seq`, 'm'));
  });
});

describe('cut', () => {
  const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 80 }), fc.constantFrom(LONG, WIDE, '👨‍👩‍👧 é\u0301 長い会話 🚀'));

  it('fits any text in the columns asked for, keeping its start or its end whole up to the ellipsis', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 90 }), fc.constantFrom('start' as const, 'end' as const), (raw, max, keep) => {
        const safe = terminalSafe(raw);
        const out = cut(raw, max, keep);
        expect(displayWidth(out)).toBeLessThanOrEqual(max);
        if (displayWidth(safe) <= max) expect(out).toBe(safe);
        else if (keep === 'start') {
          expect(out.endsWith('…')).toBe(true);
          expect(safe.startsWith(out.slice(0, -1))).toBe(true);
        } else {
          expect(out.startsWith('…')).toBe(true);
          expect(safe.endsWith(out.slice(1))).toBe(true);
        }
      }),
    );
  });

  it('takes every code point below U+0300 but CR for a grapheme of its own, as the segmenter does (cut skips it for such text)', () => {
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0x2ff }).filter((code) => code !== 0x0d).map((code) => String.fromCharCode(code)), maxLength: 60 }), (text) => {
        expect([...segmenter.segment(text)].map(({ segment }) => segment)).toEqual([...text]);
      }),
    );
  });

  it('counts a column for every code point below U+0300, none of which is a mark, an emoji or wide', () => {
    for (let code = 0; code < 0x300; code += 1) expect(/[\p{Mn}\p{Me}\p{Emoji_Presentation}]/u.test(String.fromCodePoint(code))).toBe(false);
    // ESC is left out: it starts the colour codes, which take no column.
    const below = fc.integer({ min: 0, max: 0x2ff }).filter((code) => code !== 0x1b).map((code) => String.fromCharCode(code));
    fc.assert(fc.property(fc.string({ unit: below, maxLength: 60 }), fc.string({ unit: 'grapheme', maxLength: 4 }), (text, other) => {
      expect(displayWidth(text)).toBe(text.length);
      expect(displayWidth(text + other)).toBe(text.length + displayWidth(other));
    }));
  });

  it('measures a text as the sum of its code points, escapes and colours aside', () => {
    expect(displayWidth('Codex · re\u0301sume\u0301 長い 🚀…')).toBe(23);
    const points = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }));
    fc.assert(
      fc.property(points, (text) => {
        const plain = text.replaceAll('\u001b', '');
        expect(displayWidth(plain)).toBe([...plain].reduce((width, point) => width + displayWidth(point), 0));
      }),
    );
  });

  it('cuts printable text below U+0300 a character a column, as a slice of it', () => {
    const printable = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0x2ff })).map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: printable, maxLength: 120 }), fc.string({ unit: printable, minLength: 60, maxLength: 120 })), fc.integer({ min: 1, max: 90 }), (ascii, max) => {
        const fits = ascii.length <= max;
        expect(cut(ascii, max, 'start')).toBe(fits ? ascii : `${ascii.slice(0, max - 1)}…`);
        expect(cut(ascii, max, 'end')).toBe(fits ? ascii : `…${ascii.slice(ascii.length - (max - 1))}`);
      }),
    );
  });

  it('never splits a grapheme, and keeps colour codes so a colour still ends', () => {
    expect(cut('ab👨‍👩‍👧cd', 4)).toBe('ab…');
    const style = styleFor({ isTTY: true } as never, {});
    expect(rendered(cut(style.bold('abcdef'), 4))).toBe('\u001b[1mabc\u001b[22m…');
  });

  it('a table without caps is as before; with a width, capped columns shrink widest first, to no fewer than 16', () => {
    const rows = [['ID', 'TITLE', 'CWD'], ['a', 'x'.repeat(100), '/'.repeat(30)]];
    expect(table(rows).split('\n')[1]).toBe(`a   ${'x'.repeat(100)}  ${'/'.repeat(30)}`);
    const fitted = table(rows, { caps: { 1: { max: 60 }, 2: { max: 20, keep: 'end' } }, width: 50 }).split('\n');
    expect(fitted[1]).toBe(`a   ${'x'.repeat(23)}…  …${'/'.repeat(19)}`);
    expect(displayWidth(fitted[1]!)).toBe(50);
    const narrow = table(rows, { caps: { 1: { max: 60 }, 2: { max: 20 } }, width: 10 }).split('\n');
    expect(narrow[1]).toBe(`a   ${'x'.repeat(15)}…  ${'/'.repeat(15)}…`);
  });
});
