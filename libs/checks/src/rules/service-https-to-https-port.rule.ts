import { LB_ANNOTATION, getLbAnnotation, parseProtocolPort } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { listSome, serviceRef } from '../result.util';

/** Well-known TLS ports a backend listens on (443 HTTPS, 6443 Kubernetes API, 8443 / 9443 alternates). */
const HTTPS_PORTS: ReadonlySet<number> = new Set([443, 6443, 8443, 9443]);
/** Port names that say the backend speaks TLS. */
const HTTPS_NAME = /https|tls|ssl/i;

/**
 * An HTTPS listener (`protocol-port` entry `https:<port>`) whose Service port targets a TLS port of the pod. The
 * CLB terminates TLS and forwards plain HTTP, which the pod rejects: seed 002 "Cannot connect to the backend HTTPS
 * service ... The plain HTTP request was sent to HTTPS port. Solution: Set targetPort for the HTTPS listener port
 * to the HTTP port that the backend pod listens on". A TLS port is 443/6443/8443/9443 or a port named like
 * https/tls/ssl (resolved through the EndpointSlices for named targetPorts). Scope: CLB Services with an HTTPS
 * listener.
 */
export const serviceHttpsToHttpsPortRule = scopedCheck({
  id: 'SERVICE_HTTPS_TO_HTTPS_PORT',
  title: 'HTTPS listener forwards to an HTTPS targetPort (plain HTTP to HTTPS port)',
  category: 'configuration',
  resourceKind: 'Service',
  defaultSeverity: 'warning',
  description:
    'For every Service port behind an HTTPS listener (protocol-port https:<port> with cert-id), checks the ' +
    'targetPort: the CLB decrypts TLS and sends plain HTTP, so a backend TLS port answers "The plain HTTP request ' +
    'was sent to HTTPS port".',
  remediation:
    'Set targetPort for the HTTPS listener port to the HTTP port that the backend pod listens on (for example, if ' +
    `Nginx listens on HTTPS port 443 internally, set targetPort to 80). ${DOC_URL.troubleshooting}`,
  source:
    `${SEED.troubleshooting} "Cannot connect to the backend HTTPS service" ("The plain HTTP request was sent to HTTPS ` +
    'port"); CCM pkg/controller/service/clbv1/listeners.go protocol()',
  scope: 'service',
  needs: ['kubernetes'],
  applies: ({ needClb: clb }) => clb,
  check(se, out, r, ctx) {
    const { service } = se;
    const parsed = parseProtocolPort(getLbAnnotation(service.annotations, LB_ANNOTATION.protocolPort));
    if ('error' in parsed) return;
    const httpsPorts = new Set(parsed.entries.filter((e) => e.protocol === 'https').map((e) => e.port));
    if (httpsPorts.size === 0) return;
    const ref = serviceRef(se);
    const hasCert = !!getLbAnnotation(service.annotations, LB_ANNOTATION.certId);
    const bad: string[] = [];
    const checked: string[] = [];
    for (const sp of service.ports) {
      if (!httpsPorts.has(String(sp.port))) continue;
      const target = sp.targetPort ?? sp.port;
      let resolved: number | undefined = typeof target === 'number' ? target : undefined;
      if (typeof target === 'string') {
        for (const slice of ctx.index.slicesOf(se)) {
          const p = slice.ports.find((x) => x.name !== undefined && x.name === sp.name);
          if (p?.port !== undefined) {
            resolved = p.port;
            break;
          }
        }
      }
      const text = `https:${sp.port} -> ${String(target)}${typeof target === 'string' && resolved !== undefined ? ` (${resolved})` : ''}`;
      checked.push(text);
      const tls =
        (resolved !== undefined && HTTPS_PORTS.has(resolved)) ||
        (typeof target === 'string' && HTTPS_NAME.test(target));
      if (tls) bad.push(text);
    }
    const figures = { httpsListeners: checked, certId: hasCert };
    if (bad.length > 0) {
      out.push(
        r.fail(
          ref,
          `${ref.id}: the HTTPS listener decrypts TLS but forwards to the TLS port ${listSome(bad, 3)}: the pod answers ` +
            '"The plain HTTP request was sent to HTTPS port"',
          { figures: { ...figures, tlsTargets: bad } },
        ),
      );
    } else {
      out.push(
        r.pass(ref, `${ref.id}: HTTPS listeners forward to plain ports (${listSome(checked, 3)})`, figures),
      );
    }
  },
});
