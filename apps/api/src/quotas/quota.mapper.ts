/** Response shapes of quota usage samples: REST QuotaDto (`/v1/quotas`, CLB detail) and GraphQL `Quota`. */
import type { QuotaUsageSample } from '@app/domain';
import { toResourceDto } from '../findings/finding.mapper';
import type { FindingResourceDto } from '../findings/finding.dto';
import type { QuotaDto } from './quota.dto';

/** The REST shape of a quota sample (absent cluster as null). */
export function toQuotaDto(s: QuotaUsageSample): QuotaDto {
  return { checkId: s.checkId, resource: { ...s.resource, clusterId: s.resource.clusterId ?? null }, used: s.used, limit: s.limit, ratio: s.ratio };
}

/** The GraphQL shape of a quota sample: its resource as a full ResourceRef (absent optional fields as null). */
export function toQuotaNode(q: QuotaUsageSample): { checkId: string; resource: FindingResourceDto; used: number; limit: number; ratio: number } {
  return { checkId: q.checkId, resource: toResourceDto(q.resource), used: q.used, limit: q.limit, ratio: q.ratio };
}
