import { Body, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiQuery } from '@nestjs/swagger';
import type { Principal } from '@app/store';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { TeamAware } from '../common/bearer-auth.guard';
import { AdmissionService, ENFORCE_LABEL, MAX_WARNING_RUNES } from './admission.service';
import type { AdmissionReviewAnswer } from './admission.schemas';

/** The part of the Express (or bare Node) response an admission answer is written with. */
export interface AnswerSink {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

/**
 * Writes an AdmissionReview answer as JSON (status 200, `application/json; charset=utf-8`, the length set by Node from
 * the whole body), without Express's `res.json`: that computes an ETag (a hash of the body) on every answer, which
 * only a conditional GET can use; the apiserver POSTs each review once and never revalidates an answer.
 */
export function writeAnswer(res: AnswerSink, answer: AdmissionReviewAnswer): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(answer));
}

/**
 * `/v1/admission/{cluster}`: the validating admission webhook a cluster's apiserver calls for LoadBalancer Service
 * creates and updates (AdmissionReview `admission.k8s.io/v1`), one webhook configuration per cluster naming it in
 * the path (deploy/helm `admissionWebhook` values). Any role: the token a cluster holds should be a viewer token
 * scoped to that cluster's account (or team).
 */
@TeamAware()
@BearerController('v1/admission', 'admission', 'Not an AdmissionReview admission.k8s.io/v1 (names the field); the apiserver applies failurePolicy Ignore')
export class AdmissionController {
  constructor(private readonly admission: AdmissionService) {}

  @Post(':cluster')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Validating admission webhook: warn (optionally deny) a LoadBalancer Service change that breaches a quota or adds findings',
    description:
      'Judges Service CREATE/UPDATE where the new or old object is type LoadBalancer (anything else is allowed silently), planned ' +
      'as POST /v1/plans plans the Service against the latest stored scan. `response.warnings` give the first breach and the ' +
      `findings the change adds at warning or above, one line each, at most ${MAX_WARNING_RUNES} characters. It never fails ` +
      'closed: no stored scan, an unknown cluster (or one outside the token\'s scope), a busy forecast pool or any error allows ' +
      `the change with one "not judged" warning. Denies (status 403) only when the Service has the label ${ENFORCE_LABEL}: "true" ` +
      'or the URL asks for enforcement (`enforce=true`, or the path /v1/admission/{cluster}/enforce the chart registers), and the change breaches a quota or adds a critical finding.',
  })
  @ApiParam({ name: 'cluster', description: 'Target cluster, by id or by a name unique within the token\'s scope' })
  @ApiQuery({ name: 'enforce', required: false, description: '`true`: deny a breach or a critical finding (the chart registers it for namespaces labelled for enforcement)' })
  @ApiQuery({ name: 'timeout', required: false, description: 'Set by the apiserver: its remaining deadline (`5s`); the answer comes before it' })
  @ApiBody({ schema: { type: 'object', required: ['apiVersion', 'kind', 'request'], properties: { apiVersion: { type: 'string', enum: ['admission.k8s.io/v1'] }, kind: { type: 'string', enum: ['AdmissionReview'] }, request: { type: 'object', required: ['uid', 'kind', 'resource', 'operation'] } } } })
  @ApiOkResponse({
    description: 'An AdmissionReview admission.k8s.io/v1 `{response: {uid, allowed, warnings?, status?: {code: 403, reason, message}}}`',
    schema: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, response: { type: 'object', properties: { uid: { type: 'string' }, allowed: { type: 'boolean' }, warnings: { type: 'array', items: { type: 'string' } }, status: { type: 'object' } } } } },
  })
  async review(
    @Param('cluster') cluster: string,
    @Body() body: unknown,
    @Query('enforce') enforce: string | undefined,
    @Query('timeout') timeout: string | undefined,
    @CurrentPrincipal() principal: Principal,
    @Res() res: AnswerSink,
  ): Promise<void> {
    writeAnswer(res, await this.admission.review(cluster, body, { enforce: enforce === 'true', timeout }, principal));
  }

  @Post(':cluster/enforce')
  @HttpCode(200)
  @ApiOperation({
    summary: 'The enforcing variant of the admission webhook: `enforce=true` as a path (the apiserver refuses a query string in a webhook URL)',
    description: 'As POST /v1/admission/{cluster} with enforce=true: a change that breaches a quota or adds a critical finding is denied (status 403 with the reasons). The chart registers it for namespaces labelled for enforcement.',
  })
  @ApiParam({ name: 'cluster', description: 'Target cluster, by id or by a name unique within the token\'s scope' })
  @ApiQuery({ name: 'timeout', required: false, description: 'Set by the apiserver: its remaining deadline (`5s`); the answer comes before it' })
  @ApiBody({ schema: { type: 'object', required: ['apiVersion', 'kind', 'request'] } })
  @ApiOkResponse({ description: 'An AdmissionReview admission.k8s.io/v1 `{response: {uid, allowed, warnings?, status?}}`', schema: { type: 'object' } })
  async reviewEnforced(@Param('cluster') cluster: string, @Body() body: unknown, @Query('timeout') timeout: string | undefined, @CurrentPrincipal() principal: Principal, @Res() res: AnswerSink): Promise<void> {
    writeAnswer(res, await this.admission.review(cluster, body, { enforce: true, timeout }, principal));
  }
}
