/** Table layout in terminal cells, which the binary's tests see only without colour. */
import { describe, expect, it } from 'vitest';
import { displayWidth, rendered, styleFor, table } from '../src/output';

describe('table', () => {
  it('measures CJK and emoji as two cells, combining marks and colour codes as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('長い会話')).toBe(8);
    expect(displayWidth('🚀 ✅')).toBe(5);
    expect(displayWidth('é')).toBe(1);
    expect(displayWidth('\u001b[1mID\u001b[22m')).toBe(2);
  });

  it('aligns columns with wide text and with colour on', () => {
    const style = styleFor({ isTTY: true } as never, {});
    const out = table([
      [style.bold('ID'), style.bold('TITLE'), 'CWD'],
      ['a', '長い会話 🚀', '/x'],
      ['bb', style.dim('(untitled)'), '-'],
    ]);
    expect(rendered(out)).toContain('\u001b[1mID\u001b[22m');
    const plain = rendered(out).replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '').split('\n');
    expect(plain).toEqual(['ID  TITLE        CWD', 'a   長い会話 🚀  /x', 'bb  (untitled)   -']);
  });
});
