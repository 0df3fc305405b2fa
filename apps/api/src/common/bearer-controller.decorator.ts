import { applyDecorators, Controller } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto';

/**
 * The class decorators every controller behind the bearer token stacked: its route prefix, the 400 answer all its
 * routes share (when `badRequest` describes one), the 401 answer, bearer security and its OpenAPI tag.
 * @param path route prefix (`v1/findings`)
 * @param tag OpenAPI tag
 * @param badRequest description of the shared 400 answer, if every route of the controller validates input alike
 */
export function BearerController(path: string, tag: string, badRequest?: string): ClassDecorator {
  // In the order the stacked decorators ran (bottom-up), so the OpenAPI document is the same as with the stack.
  return applyDecorators(
    Controller(path),
    ...(badRequest !== undefined ? [ApiBadRequestResponse({ type: ErrorResponseDto, description: badRequest })] : []),
    ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'Missing or invalid bearer token' }),
    ApiBearerAuth('bearer'),
    ApiTags(tag),
  );
}
