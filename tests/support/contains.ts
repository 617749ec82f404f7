// A text that must hold many pieces: each piece is checked on its own, so a failure names the piece missing.
import { expect } from 'vitest';

export function expectToContainAll(text: string, pieces: readonly string[]): void {
  for (const piece of pieces) expect(text).toContain(piece);
}
