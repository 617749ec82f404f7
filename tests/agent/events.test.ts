// The network gate's refusals as the agent core turns them into events and the result's count.
import { describe, expect, it } from 'vitest';
import {
  countRefusal,
  refusedHosts,
  watchRefusals,
  type AgentEvent,
  type RefusedHost,
} from '../../src/agent/events.js';
import type { NetworkRefusal, ToolNetwork } from '../../src/sandbox/namespaces.js';

/** A gate as the sandbox holds it: refusals told to whoever watches. */
function gate(): ToolNetwork & { refuse(refusal: Omit<NetworkRefusal, 'at'>): void } {
  const listeners = new Set<(refusal: NetworkRefusal) => void>();
  return {
    env: {},
    refusedSince: () => [],
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {},
    refuse(refusal) {
      for (const listener of listeners) listener({ ...refusal, at: Date.now() });
    },
  };
}

describe('countRefusal and refusedHosts', () => {
  it('count by host, with the port where it is not 80 or 443, most refused first', () => {
    const tally = new Map<string, RefusedHost>();
    for (const [host, port] of [
      ['a.example', 443],
      ['a.example', 80],
      ['db.example', 5432],
      ['::1', 22],
      ['b.example', 443],
    ] as const)
      countRefusal(tally, { host, port });
    expect(refusedHosts(tally)).toEqual([
      { host: 'a.example', count: 2 },
      { host: '[::1]:22', count: 1 },
      { host: 'b.example', count: 1 },
      { host: 'db.example:5432', count: 1 },
    ]);
  });
});

describe('watchRefusals', () => {
  it('emits an event per refusal at the current turn, and gives the result its count until stopped', () => {
    const network = gate();
    const events: AgentEvent[] = [];
    let turn = 3;
    const watch = watchRefusals(
      network,
      (event) => events.push(event),
      () => turn,
    );
    network.refuse({
      host: 'evil.example',
      port: 443,
      reason: 'evil.example is not in the allowlist',
      allow: 'evil.example',
    });
    turn = 4;
    network.refuse({ host: 'evil.example', port: 80, reason: 'evil.example is not in the allowlist' });
    expect(events).toEqual([
      {
        type: 'network_refused',
        turn: 3,
        host: 'evil.example',
        port: 443,
        reason: 'evil.example is not in the allowlist',
        allow: 'evil.example',
      },
      {
        type: 'network_refused',
        turn: 4,
        host: 'evil.example',
        port: 80,
        reason: 'evil.example is not in the allowlist',
      },
    ]);
    expect(watch.stop()).toEqual({
      refusedHosts: [{ host: 'evil.example', count: 2, allow: 'evil.example' }],
    });
    network.refuse({ host: 'later.example', port: 443, reason: 'x' });
    expect(events).toHaveLength(2);
  });

  it('gives nothing without a gate, or when nothing was refused', () => {
    expect(
      watchRefusals(
        undefined,
        () => undefined,
        () => 1,
      ).stop(),
    ).toEqual({});
    expect(
      watchRefusals(
        gate(),
        () => undefined,
        () => 1,
      ).stop(),
    ).toEqual({});
  });
});
