import { describe, expect, it } from 'vitest';
import { k8sService } from '../../test/k8s-objects.factory';
import type { K8sService } from '../snapshot.types';
import {
  ccmManagesListeners,
  expectedListeners,
  listenerProtocolOf,
  listenerTransport,
  parseProtocolPort,
  parseVGroupPort,
} from './listeners.model';

const P = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-';

/** The Service `default/nginx` (uid `u-1`) with `annotations` and three ports: http 80, https 443 (TCP), dns 53 (UDP). */
function svc(annotations: Record<string, string> = {}): K8sService {
  return k8sService({
    name: 'nginx',
    uid: 'u-1',
    annotations,
    ports: [
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 80, nodePort: 30080 },
      { name: 'https', protocol: 'TCP', port: 443, targetPort: 80, nodePort: 30443 },
      { name: 'dns', protocol: 'UDP', port: 53, targetPort: 53, nodePort: 30053 },
    ],
  });
}

describe('parseProtocolPort (CCM clbv1/listeners.go protocol())', () => {
  it.each([
    ['empty', '', []],
    ['seed 002 example', 'https:443', [{ protocol: 'https', port: '443' }]],
    [
      'several',
      'https:443,http:80',
      [
        { protocol: 'https', port: '443' },
        { protocol: 'http', port: '80' },
      ],
    ],
  ])('%s', (_n, text, entries) => {
    expect(parseProtocolPort(text)).toEqual({ entries });
  });

  it('rejects an element without colon and an unknown protocol with CCM texts', () => {
    expect(parseProtocolPort('https443')).toMatchObject({
      error: expect.stringContaining("like 'https:443'"),
    });
    expect(parseProtocolPort('grpc:443')).toMatchObject({
      error: expect.stringContaining('[http|https|tcp|udp]'),
    });
  });
});

describe('expectedListeners', () => {
  it('builds one listener per port, protocol from protocol-port else the port protocol lower-cased', () => {
    const out = expectedListeners(svc({ [`${P}protocol-port`]: 'https:443' }), 'c1');
    expect('listeners' in out && out.listeners.map((l) => [l.port, l.protocol, l.description])).toEqual([
      [80, 'tcp', 'k8s/80/nginx/default/c1'],
      [443, 'https', 'k8s/443/nginx/default/c1'],
      [53, 'udp', 'k8s/53/nginx/default/c1'],
    ]);
  });

  it('maps protocols to the transport they occupy', () => {
    expect(['tcp', 'http', 'https', 'udp', 'UDP'].map(listenerTransport)).toEqual([
      'tcp',
      'tcp',
      'tcp',
      'udp',
      'udp',
    ]);
    expect(listenerProtocolOf([{ protocol: 'http', port: '8080' }], svc().ports[0]!)).toBe('tcp');
  });
});

describe('ccmManagesListeners (force-override-listeners must be exactly "true")', () => {
  it.each([
    ['CCM-created CLB', {}, true],
    ['reused without override', { [`${P}id`]: 'lb-1' }, false],
    ['reused with "false"', { [`${P}id`]: 'lb-1', [`${P}force-override-listeners`]: 'false' }, false],
    ['reused with "True"', { [`${P}id`]: 'lb-1', [`${P}force-override-listeners`]: 'True' }, false],
    ['reused with "true"', { [`${P}id`]: 'lb-1', [`${P}force-override-listeners`]: 'true' }, true],
  ])('%s', (_n, annotations, want) => {
    expect(ccmManagesListeners(svc(annotations))).toBe(want);
  });
});

describe('parseVGroupPort', () => {
  it('maps Service ports to user vServer groups', () => {
    const out = parseVGroupPort('rsp-a:80,rsp-b:443');
    expect('byPort' in out && [...out.byPort.entries()]).toEqual([
      ['80', 'rsp-a'],
      ['443', 'rsp-b'],
    ]);
    expect(parseVGroupPort('rsp-a')).toMatchObject({ error: expect.stringContaining("'vsp-xxx:443'") });
  });

  // CCM clbv1/listeners.go `vgroup()`: strings.Split on "," and ":" without TrimSpace; the first element whose
  // part 1 equals the port wins; part 0 "" means no user vgroup. getVGroupIDs (clbv1/vgroups.go) only
  // rejects an element with fewer than 2 parts.
  it('reads vgroup-port like CCM vgroup(): first match wins, no trimming, empty id = none (listeners.go)', () => {
    const first = parseVGroupPort('rsp-a:443,rsp-b:443');
    expect('byPort' in first && first.byPort.get('443')).toBe('rsp-a');
    const spaced = parseVGroupPort('rsp-a:80, rsp-b:443');
    expect('byPort' in spaced && [...spaced.byPort.entries()]).toEqual([
      ['80', 'rsp-a'],
      ['443', ' rsp-b'],
    ]);
    const emptyId = parseVGroupPort(':443,rsp-b:443');
    expect('byPort' in emptyId && emptyId.byPort.size).toBe(0);
    const extra = parseVGroupPort('rsp-a:443:x');
    expect('byPort' in extra && extra.byPort.get('443')).toBe('rsp-a');
    expect(parseVGroupPort('rsp-a:80,')).toMatchObject({ error: expect.stringContaining("'vsp-xxx:443'") });
  });
});
