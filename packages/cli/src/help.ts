/** Help text, generated from the command table: `sessref --help` lists the commands, `sessref <command> --help` shows one. */
import type { Command } from './commands/command.js';
import { GLOBAL_OPTIONS, isOptionName, optionSyntax } from './commands/options.js';
import { COMMANDS } from './commands/table.js';

/** Help lines wrap before this column. */
const WIDTH = 78;

export function mainHelp(): string {
  return [
    'sessref: cross-session references over dsh session logs',
    '',
    'Usage: sessref <command> [options]',
    '',
    'Commands:',
    ...columns(COMMANDS.map((command) => [command.name, command.summary]), '  '),
    '',
    'Global options:',
    ...columns(Object.entries(GLOBAL_OPTIONS).flatMap(([name, text]) => (isOptionName(name) ? [[optionSyntax(name), text] as const] : [])), '  '),
    '',
    'Exit codes: 0 success, 1 usage or input error, 2 storage error.',
    'Colour is off when NO_COLOR is set or output is not a terminal.',
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const options = commandOptions(command);
  const rows = options.map(([name, option]) => [optionSyntax(name), option.default === undefined ? option.description : `${option.description} (default: ${option.default})`] as const);
  if (command.json !== undefined) rows.push(['--json', command.json]);
  return [
    usageLine(command),
    ...wrap(command.description, WIDTH - 2).map((line) => `  ${line}`),
    ...(rows.length === 0 ? [] : ['  Options:', ...columns(rows, '    ')]),
    '  Global options: --root DIR, --json, --debug, -h/--help, -V/--version (see sessref --help)',
    `  ${command.examples.length === 1 ? 'Example' : 'Examples'}:`,
    ...command.examples.map((example) => `    ${example}`),
  ].join('\n');
}

/** `sessref prepare --target ID MESSAGE [--max-bytes N] [--json]`: required flags, operands, optional flags. */
function usageLine(command: Command): string {
  const options = commandOptions(command);
  const operands = command.synopsis ?? command.operands.map((operand) => (operand.needs === undefined ? `[${operand.name}]` : operand.name)).join(' ');
  return [
    `sessref ${command.name}`,
    ...options.filter(([, option]) => option.required === true).map(([name]) => optionSyntax(name)),
    operands,
    ...options.filter(([, option]) => option.required !== true).map(([name]) => `[${optionSyntax(name)}]`),
    ...(command.json === undefined ? [] : ['[--json]']),
  ]
    .filter((part) => part !== '')
    .join(' ');
}

function commandOptions(command: Command) {
  return Object.entries(command.options).flatMap(([name, option]) => (isOptionName(name) && option !== undefined ? [[name, option] as const] : []));
}

/** Two indented columns: each name padded to the longest, its text wrapped beside it. */
function columns(rows: readonly (readonly [string, string])[], indent: string): string[] {
  const width = Math.max(...rows.map(([name]) => name.length)) + 3;
  return rows.flatMap(([name, text]) => wrap(text, WIDTH - indent.length - width).map((line, index) => `${indent}${(index === 0 ? name : '').padEnd(width)}${line}`));
}

/** Greedy word wrap at `width` columns. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}
