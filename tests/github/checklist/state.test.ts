import { describe, expect, it } from 'vitest';
import { STATE_MARKER, commentSafeJson, parseAgentState } from '../../../src/github/checklist/state.js';

describe('agent-state', () => {
  it('encodes <, > and - inside strings and stays valid JSON', () => {
    const value = { s: '--> <!-- a-b &', n: -1.5e-7, list: [-1, -2] };
    const json = commentSafeJson(value);
    expect(json).not.toMatch(/[<>&]|--/);
    expect(JSON.parse(json)).toEqual(value);
  });

  it.each([
    ['no marker', 'just a comment'],
    ['no end', `${STATE_MARKER} {"v":1,"items":[]}`],
    ['broken JSON', `${STATE_MARKER} {"v":1,"items":[ -->`],
    ['not an object', `${STATE_MARKER} [1,2] -->`],
    ['unknown version', `${STATE_MARKER} {"v":2,"items":[]} -->`],
    ['items not an array', `${STATE_MARKER} {"v":1,"items":{}} -->`],
    ['invalid item', `${STATE_MARKER} {"v":1,"items":[{"id":"1","text":"","status":"pending"}]} -->`],
    ['bad status', `${STATE_MARKER} {"v":1,"items":[{"text":"x","status":"done"}]} -->`],
    ['branch not a string', `${STATE_MARKER} {"v":1,"items":[],"branch":5} -->`],
  ])('parseAgentState returns undefined for %s', (_case, body) => {
    expect(parseAgentState(body)).toBeUndefined();
  });

  it('parseAgentState reads the last state in a body', () => {
    const body = `${STATE_MARKER} {"v":1,"items":[]} -->\n${STATE_MARKER} {"v":1,"items":[{"text":"x"}],"run":"5"} -->`;
    expect(parseAgentState(body)).toEqual({
      v: 1,
      items: [{ id: '1', text: 'x', status: 'pending' }],
      run: '5',
    });
  });
});
