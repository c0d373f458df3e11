/**
 * `/docs`: Swagger UI over the OpenAPI document, served from the files of the `swagger-ui-dist` package (no CDN).
 * The online validator badge is switched off, so the page calls nothing but this service.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BRAND } from '../../shared/brand.ts';

export const DOCS_PATH = '/docs';
export const DOCS_ASSETS = '/docs/assets';
export const OPENAPI_PATH = '/.well-known/openapi-public.json';

/** The only package files the page needs, and their types; nothing else of node_modules is reachable. */
const ASSET_TYPES = new Map<string, string>([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['swagger-ui-standalone-preset.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
  ['favicon-16x16.png', 'image/png'],
]);

/** Swagger UI styles elements inline and draws icons from data: URLs; everything else comes from this origin. */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

const distDir = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

export function docsHtml(): string {
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>${BRAND.name} public API: documentation</title>
    <link rel="stylesheet" href="${DOCS_ASSETS}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS}/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_ASSETS}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_ASSETS}/swagger-ui-standalone-preset.js"></script>
    <script src="${DOCS_ASSETS}/init.js"></script>
  </body>
</html>
`;
}

/** An external script rather than an inline one, so the page's CSP can forbid inline scripts. */
export function docsInitScript(): string {
  return `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout'
  });
};
`;
}

/** A swagger-ui-dist file by name (the caller keeps it); undefined for any name outside the list. */
export function docsAsset(name: string): { type: string; body: Buffer } | undefined {
  // A Map, not an object: `constructor` or `__proto__` must not name a file.
  const type = ASSET_TYPES.get(name);
  return type === undefined ? undefined : { type, body: readFileSync(join(distDir(), name)) };
}
