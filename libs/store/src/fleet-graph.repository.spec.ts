import { describe, expect, it } from 'vitest';
import type { GraphBackend } from '@app/domain';
import { backendsJson } from './fleet-graph.repository';

describe(backendsJson.name, () => {
  it('writes the text JSON.stringify gives for the backend tuples, escapes and nulls included', () => {
    const backends = [
      { serverId: 'i-bp1node01', serverIp: '192.168.0.21', port: 31443, weight: 100, type: 'ecs' },
      { serverId: 'eni-"quoted"\\back', serverIp: null, port: null, weight: 0, type: 'eni' },
      { serverId: 'ctl\u0000\n\t', serverIp: 'lone \ud800 pair 😀 é', port: Number.NaN, weight: -0, type: 'eci' },
      { serverId: '\u2028', serverIp: undefined, port: 1.5, weight: 1e21, type: '' },
    ] as unknown as GraphBackend[];
    const expected = JSON.stringify(backends.map((b) => [b.serverId, b.serverIp, b.port, b.weight, b.type]));
    expect(backendsJson(backends)).toBe(expected);
    expect(backendsJson([])).toBe('[]');
  });
});
