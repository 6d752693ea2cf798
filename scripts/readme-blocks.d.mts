/** Types of readme-blocks.mjs, for the TypeScript tests that read the READMEs. */
export interface ReadmeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  kind: 'shell' | 'transcript' | 'other';
  body: string;
  /** Why the block is not run (`<!-- docs-test: skip: reason -->`). */
  skip?: string;
  /** Shell command run before a transcript (`<!-- docs-test: before: command -->`). */
  before?: string;
}

export interface TranscriptStep {
  command: string;
  output: string[];
}

export function readmes(root: string): string[];
export function readBlocks(markdown: string): ReadmeBlock[];
export function transcriptSteps(body: string): TranscriptStep[];
export function allBlocks(root: string): { file: string; blocks: ReadmeBlock[] }[];
