/**
 * The demo catalogue's watch images (`/images/watches/{REFERENCE}/{view}.svg`, services/demo/watch-builder.ts),
 * drawn on request: a small SVG of a watch with its reference and view, so that every `image.url` of the demo
 * resolves instead of being a dead link. A catalogue with real photographs gives their own URLs in its file.
 */

/** The route, as @koa/router reads it. */
export const WATCH_IMAGE_ROUTE = '/images/watches/:reference/:file';

const REFERENCE = /^[A-Z0-9][A-Z0-9-]{0,39}$/;
const VIEWS = new Set(['main', 'three-quarter', 'dial', 'wrist']);

/** The drawing of `file` (`main.svg`, ...) of watch `reference`, or undefined when the path names no demo image. */
export function watchImage(reference: string, file: string): string | undefined {
  // `.jpg`: the names the demo gave before its images were drawn, still in the history of stores loaded then.
  const view = /\.(svg|jpg)$/.test(file) ? file.slice(0, -'.svg'.length) : '';
  if (!REFERENCE.test(reference) || !VIEWS.has(view)) return undefined;
  // The dial view is drawn closer; the reference and the view are plain characters (checked above).
  const radius = view === 'dial' ? 220 : 150;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600" viewBox="0 0 600 600" role="img" aria-label="${reference}, ${view}">`,
    '<rect width="600" height="600" fill="#f4f1ea"/>',
    view === 'dial' ? '' : '<rect x="250" y="40" width="100" height="520" rx="24" fill="#3b362f"/>',
    `<circle cx="300" cy="300" r="${radius}" fill="#c9c2b2" stroke="#5a5142" stroke-width="14"/>`,
    `<circle cx="300" cy="300" r="${radius - 25}" fill="#fdfcf8"/>`,
    `<line x1="300" y1="300" x2="300" y2="${300 - (radius - 60)}" stroke="#222" stroke-width="8" stroke-linecap="round"/>`,
    `<line x1="300" y1="300" x2="${300 + (radius - 85)}" y2="300" stroke="#222" stroke-width="10" stroke-linecap="round"/>`,
    '<circle cx="300" cy="300" r="10" fill="#222"/>',
    `<text x="300" y="585" text-anchor="middle" font-family="sans-serif" font-size="26" fill="#5a5142">${reference} · ${view}</text>`,
    '</svg>',
  ].join('');
}
