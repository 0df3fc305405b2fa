import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

/** Path of the OpenAPI document (JSON). */
export const OPENAPI_JSON_PATH = '/openapi.json';

/** Path of the Swagger UI. */
export const SWAGGER_UI_PATH = '/docs';

/** Build the OpenAPI 3 document of the app's routes, with the bearer scheme named `bearer`. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('ack-fleet-audit')
    .setDescription(
      'Audit of Service type=LoadBalancer across Alibaba Cloud ACK fleets: scans, their coverage and findings ' +
        '(CLB / ECS quota use, Cluster-mode blowup, NodePort overlaps, orphaned CLBs, CCM and RAM gaps). ' +
        'Every /v1 route needs "Authorization: Bearer <token>".',
    )
    .setVersion('1')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'The opaque API token given to the server (API_TOKEN), sent as is' },
      'bearer',
    )
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    .addServer('/', 'this server')
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** Serve the document at `/openapi.json` and the Swagger UI at `/docs` (both without a token). */
export function mountOpenApi(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup(SWAGGER_UI_PATH, app, document, { jsonDocumentUrl: OPENAPI_JSON_PATH, raw: ['json'] });
}
