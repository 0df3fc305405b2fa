/**
 * One declaration per REST route instead of a stack of OpenAPI decorators, and the request parts validated by the
 * zod schemas that also document them (ApiZodQuery / ApiZodBody): the route's HTTP verb and path stay Nest's own
 * (`@Get`, `@Post`, ...), next to `@ApiRoute({...})`.
 */
import { applyDecorators, Body, Param, Query } from '@nestjs/common';
import type { Type } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  type ApiParamOptions,
  type ApiResponseOptions,
} from '@nestjs/swagger';
import type { z } from 'zod';
import { ErrorResponseDto } from './error-response.dto';
import { ApiZodBody, ApiZodQuery } from './zod-openapi.util';
import { ZodValidationPipe } from './zod-validation.pipe';

/** An error answer of a route: its description, or `true` for the bare ErrorResponseDto. */
export type ErrorAnswer = string | true;

/** What OpenAPI says of one route. */
export interface RouteDoc {
  /** Operation summary. */
  summary: string;
  /** Operation description (longer prose), if any. */
  description?: string;
  /** The path parameter (`id`), as `@ApiParam` takes it. */
  param?: ApiParamOptions;
  /** The query schema: every field becomes a documented query parameter (validate with `@ZodQuery`). */
  query?: z.ZodObject;
  /** The JSON body schema (validate with `@ZodBody`). */
  body?: z.ZodType;
  /** The 200 body. */
  ok?: Type<unknown>;
  /** The 201 body (a route that creates). */
  created?: Type<unknown>;
  /** 400, for routes whose controller does not declare one shared 400 answer. */
  badRequest?: ErrorAnswer;
  /** 403. */
  forbidden?: ErrorAnswer;
  /** 404. */
  notFound?: ErrorAnswer;
  /** 409. */
  conflict?: ErrorAnswer;
}

/** The ErrorResponseDto answer with `description` (none for `true`). */
function errorAnswer(make: (o: ApiResponseOptions) => MethodDecorator, answer: ErrorAnswer | undefined): MethodDecorator[] {
  if (answer === undefined) return [];
  return [make(answer === true ? { type: ErrorResponseDto } : { type: ErrorResponseDto, description: answer })];
}

/**
 * The OpenAPI documentation of a route: operation, path parameter, query parameters, body, success and error answers.
 * The decorators run in the order the hand-stacked ones did (bottom-up: errors, success, body, query, parameter,
 * operation), so the OpenAPI document is the same as with the stack (pinned by test/api/openapi-lint.e2e-spec.ts).
 */
export function ApiRoute(doc: RouteDoc): MethodDecorator {
  return applyDecorators(
    ...errorAnswer(ApiConflictResponse, doc.conflict),
    ...errorAnswer(ApiForbiddenResponse, doc.forbidden),
    ...errorAnswer(ApiNotFoundResponse, doc.notFound),
    ...errorAnswer(ApiBadRequestResponse, doc.badRequest),
    ...(doc.created ? [ApiCreatedResponse({ type: doc.created })] : []),
    ...(doc.ok ? [ApiOkResponse({ type: doc.ok })] : []),
    ...(doc.body ? [ApiZodBody(doc.body)] : []),
    ...(doc.query ? [ApiZodQuery(doc.query)] : []),
    ...(doc.param ? [ApiParam(doc.param)] : []),
    ApiOperation(doc.description !== undefined ? { summary: doc.summary, description: doc.description } : { summary: doc.summary }),
  );
}

/** The query string parsed by `schema` (400 VALIDATION_FAILED naming `query.<field>` otherwise). */
export function ZodQuery(schema: z.ZodType): ParameterDecorator {
  return Query(new ZodValidationPipe(schema, 'query'));
}

/** The JSON body parsed by `schema` (400 VALIDATION_FAILED naming `body.<field>` otherwise). */
export function ZodBody(schema: z.ZodType): ParameterDecorator {
  return Body(new ZodValidationPipe(schema, 'body'));
}

/** The path parameter `name` parsed by `schema` (400 VALIDATION_FAILED naming `path.<name>` otherwise). */
export function ZodParam(name: string, schema: z.ZodType): ParameterDecorator {
  return Param(name, new ZodValidationPipe(schema, `path.${name}`));
}
