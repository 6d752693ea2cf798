import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// One namespace import: the names are listed once, in index.ts's re-export.
import * as notice from './omissions.js';
import type { FullSnapshotOutcome, ReferenceOmission } from './omissions.js';
import type { ReferencedSessionData } from './types.js';

const text = fc.string({ unit: 'grapheme', maxLength: 300 });

const outcome: fc.Arbitrary<FullSnapshotOutcome> = fc.oneof(
  fc.record({ status: fc.constant('saved' as const), locator: text, bytes: fc.nat(), retrievalHint: text }),
  fc.record({ status: fc.constant('unavailable' as const), reason: fc.constantFrom('storage-not-configured' as const, 'save-failed' as const) }),
);

const omission: fc.Arbitrary<ReferenceOmission> = fc.record({
  sessionId: text,
  capturedThroughSeq: fc.option(fc.nat(), { nil: null }),
  omittedMessages: fc.nat(),
  omittedBytes: fc.nat(),
  fullSnapshot: outcome,
});

const data: fc.Arbitrary<ReferencedSessionData> = fc.record({
  sessionId: text,
  label: text,
  cwd: fc.option(text, { nil: null }),
  capturedThroughSeq: fc.option(fc.nat(), { nil: null }),
  conversation: fc.array(fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), text: text.filter((value) => value.length > 0) }), { maxLength: 6 }),
});

describe('renderReferenceOmissions', () => {
  it('adds nothing when no preview was shortened', () => {
    expect(notice.renderReferenceOmissions([])).toBe('');
  });

  it('is a blank line, the heading, one explanation line and the notices as one line of tag-safe JSON that parses back', () => {
    fc.assert(
      fc.property(fc.array(omission, { minLength: 1, maxLength: 3 }), (omissions) => {
        const rendered = notice.renderReferenceOmissions(omissions);
        expect(rendered.startsWith(`\n\n${notice.REFERENCE_OMISSIONS_HEADING}\n\n`)).toBe(true);
        const lines = rendered.slice(`\n\n${notice.REFERENCE_OMISSIONS_HEADING}\n\n`.length).split('\n');
        expect(lines).toHaveLength(2);
        expect(lines[1]).not.toContain('<');
        expect(JSON.parse(lines[1]!)).toEqual(omissions);
        // Key order is the wire order.
        expect(Object.keys((JSON.parse(lines[1]!) as object[])[0]!)).toEqual(['sessionId', 'capturedThroughSeq', 'omittedMessages', 'omittedBytes', 'fullSnapshot']);
      }),
    );
  });
});

/** The messages of a transcript, decoded from their fragment lines. */
function decodeMessages(transcript: string): { role: string; text: string; fragments: string[] }[] {
  const sections = transcript.split(/\n### Message (\d+): (user|assistant)\n\n/u);
  const messages: { role: string; text: string; fragments: string[] }[] = [];
  for (let index = 1; index < sections.length; index += 3) {
    expect(Number(sections[index])).toBe(messages.length + 1);
    const fragments = sections[index + 2]!.split('\n').filter((line) => line.length > 0);
    messages.push({ role: sections[index + 1]!, text: fragments.map((line) => JSON.parse(line) as string).join(''), fragments });
  }
  return messages;
}

describe('renderFullSnapshotTranscript', () => {
  it('starts with the heading and holds the capture facts with the log generation as indented JSON', () => {
    const transcript = notice.renderFullSnapshotTranscript(
      { sessionId: 's', label: 'L', cwd: null, capturedThroughSeq: 7, conversation: [{ role: 'user', text: 'hi' }] },
      4,
    );
    expect(transcript.split('\n')[0]).toBe(notice.FULL_SNAPSHOT_HEADING);
    expect(transcript).toContain(JSON.stringify({ sessionId: 's', label: 'L', cwd: null, capturedThroughSeq: 7, capturedFormatVersion: 4 }, null, 2));
    expect(transcript.endsWith('\n"hi"\n')).toBe(true);
  });

  it('gives back every message exactly, in order, from JSON fragments of at most 64 code points', () => {
    fc.assert(
      fc.property(data, fc.nat({ max: 9 }), (snapshot, version) => {
        const messages = decodeMessages(notice.renderFullSnapshotTranscript(snapshot, version));
        expect(messages.map(({ role, text: decoded }) => ({ role, text: decoded }))).toEqual(snapshot.conversation);
        for (const { fragments } of messages) {
          for (const fragment of fragments) expect(Array.from(JSON.parse(fragment) as string).length).toBeLessThanOrEqual(notice.TRANSCRIPT_FRAGMENT_CODE_POINTS);
          // Only the last fragment of a message may be short.
          for (const fragment of fragments.slice(0, -1)) expect(Array.from(JSON.parse(fragment) as string)).toHaveLength(notice.TRANSCRIPT_FRAGMENT_CODE_POINTS);
        }
      }),
    );
  });
});
