// errorMessage: what was thrown, as text. errorSentence: one line for a comment, a log line or an output, never a stack, never half a secret.
import { describe, expect, it } from 'vitest';
import { errorMessage, errorSentence } from '../../src/text/error-sentence.js';
import { redactor } from '../../src/text/redact.js';

describe('errorSentence', () => {
  it('keeps the first line of the message only', () => {
    expect(errorSentence(new Error('push failed\n    at git (/x.js:1:1)'))).toBe('push failed');
    expect(errorSentence('plain')).toBe('plain');
    expect(errorSentence(new Error(''))).toBe('unknown error');
  });

  it('redacts before it cuts at 300 characters, so the API is never left half a secret to miss', () => {
    const secret = 'ErrorSentenceSecret0123456789abcdef';
    redactor.add(secret);
    const sentence = errorSentence(new Error(`${'e'.repeat(290)} ${secret} and the rest\n  at x`));
    expect(sentence).toBe(`${'e'.repeat(290)} *** and…`);
    expect(Array.from(sentence).length).toBeLessThanOrEqual(300);
    expect(sentence).not.toContain(secret.slice(0, 6));
  });
});

describe('errorMessage', () => {
  it("gives an Error's whole message as it is, and any other thrown value as text", () => {
    expect(errorMessage(new TypeError('bad input\nsecond line'))).toBe('bad input\nsecond line');
    expect(errorMessage('a string')).toBe('a string');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});
