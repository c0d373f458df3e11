import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { expect } from 'chai';
import { loadConfig } from '../../shared/config/config.ts';
import { discoveryRoutes } from '../../read-api/discovery/discovery-routes.ts';
import { BRAND } from '../../shared/brand.ts';
import { publicOperations } from '../../shared/read-model/public-api/operations/index.ts';
import { testSigningKeys } from '../support/signing-keys.ts';
import { CONTRACT_LOG_ENDPOINTS, CONTRACT_OPERATIONS } from '../support/contract-answers.ts';
import { send } from '../support/http.ts';

describe('discovery files and /docs', () => {
  let server: Server;
  let base: string;
  const config = loadConfig({ PUBLIC_BASE_URL: 'https://api.aurele.example/', RATE_LIMIT_PER_MINUTE: '45', VERIFY_RATE_LIMIT_PER_MINUTE: '7', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '321' });
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });

  before(async () => {
    const app = new Koa();
    app.use(discoveryRoutes({ operations: publicOperations, config, jwks: (await testSigningKeys()).jwks }));
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => { server.closeAllConnections(); server.close(); });

  it('serves /llms.txt as text/plain markdown: H1 brand, > summary, links to every operation and file', async () => {
    const answer = await get('/llms.txt');
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    const text = await answer.text();
    expect(text.split('\n')[0]).to.equal(`# ${BRAND.name}`);
    expect(text).to.match(/^> .+/m);
    expect(text).to.match(/^## Operations$/m);
    for (const op of CONTRACT_OPERATIONS) expect(text).to.include(`](https://api.aurele.example${op.path})`);
    for (const file of ['/llms-full.txt', '/.well-known/openapi-public.json', '/.well-known/ai-brief.json', '/docs']) {
      expect(text).to.include(`(https://api.aurele.example${file})`);
    }
  });

  it('links absolute URLs of the address the connection reached when PUBLIC_BASE_URL is not set, and keeps the OpenAPI servers at /', async () => {
    const app = new Koa();
    app.use(discoveryRoutes({ operations: publicOperations, config: loadConfig({ PORT: '3010' }), jwks: (await testSigningKeys()).jwks }));
    const own = app.listen(0, '127.0.0.1');
    await once(own, 'listening');
    try {
      const at = `http://127.0.0.1:${(own.address() as AddressInfo).port}`;
      const llms = await (await fetch(`${at}/llms.txt`)).text();
      expect(llms).to.include(`](${at}/llms-full.txt)`);
      expect(llms).to.include(`](${at}/api/public/catalogue)`);
      const full = await (await fetch(`${at}/llms-full.txt`)).text();
      expect(full).to.include(`Base URL: ${at}.`);
      expect(full).to.include(`curl '${at}/api/public/status?lang=en'`);
      expect(full).not.to.match(/curl (-X POST )?'\//);
      const brief = (await (await fetch(`${at}/.well-known/ai-brief.json`)).json()) as { api: { base_url: string; openapi: string } };
      expect(brief.api).to.include({ base_url: at, openapi: `${at}/.well-known/openapi-public.json` });
      const openapi = (await (await fetch(`${at}/.well-known/openapi-public.json`)).json()) as { servers: { url: string }[] };
      expect(openapi.servers.map((server) => server.url)).to.deep.equal(['/']);
      // Never the origin the client names in Host (issue 42, item 4): the links stay those of the listening address.
      const named = await send(at, '/llms.txt', { headers: { host: 'Shop.EXAMPLE:8080' } });
      expect(named.text).to.include(`](${at}/llms-full.txt)`);
      expect(named.text.toLowerCase()).not.to.include('shop.example');
      const odd = await send(at, '/llms.txt', { headers: { host: "x'y" } });
      expect(odd.text).to.include(`](${at}/llms-full.txt)`);
      expect(odd.text).not.to.include("x'y");
    } finally {
      own.closeAllConnections();
      own.close();
    }
  });

  it('serves /llms-full.txt with every operation, parameter, error and the configured limits, with examples', async () => {
    const answer = await get('/llms-full.txt');
    expect(answer.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    const text = await answer.text();
    for (const op of CONTRACT_OPERATIONS) expect(text).to.include(`## ${op.method} ${op.path}`);
    for (const name of ['lang', 'collection', 'search', 'min_price', 'max_price', 'in_stock', 'sort', 'limit', 'offset', 'reference', 'serial']) {
      expect(text).to.include(`\`${name}\``);
    }
    for (const status of ['422', '404', '405', '413', '429']) expect(text).to.include(`- ${status} `);
    // The refusals' texts (docs/api.md, "Honest answers" and "Read your writes"), "in French" with lang=fr: an agent
    // told that text fields come in the language asked learns which error texts do and which stay English.
    for (const detail of [
      'The catalogue is being prepared; try again shortly', 'Le catalogue est en cours de préparation ; réessayez dans un instant',
      'The registry cannot be checked right now; try again shortly', 'Le registre ne peut pas être consulté pour le moment ; réessayez dans un instant',
      'The answer is not yet up to date with your change; try again shortly', 'La réponse n\'est pas encore à jour de votre modification ; réessayez dans un instant',
    ]) expect(text).to.include(detail);
    expect(text).to.include('in English whatever `lang` says');
    expect(text).to.include('Rate limit exceeded: 45 per 1 minute');
    expect(text).to.include('7 serial verifications per minute');
    expect(text).to.include("curl 'https://api.aurele.example/api/public/verify/");
    expect(text).to.include('curl -X POST');
  });

  it('serves the OpenAPI document as JSON', async () => {
    const answer = await get('/.well-known/openapi-public.json');
    expect(answer.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    const document = await answer.json() as { openapi: string; paths: object };
    expect(document.openapi).to.equal('3.1.0');
    expect(Object.keys(document.paths)).to.have.members([...new Set([...CONTRACT_OPERATIONS, ...CONTRACT_LOG_ENDPOINTS].map((op) => op.path))]);
  });

  it('serves the brand brief with offers, languages, policies and links', async () => {
    const answer = await get('/.well-known/ai-brief.json');
    expect(answer.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    const brief = await answer.json() as any;
    expect(brief.brand.name).to.equal(BRAND.name);
    expect(brief.offers.map((o: { method: string; path: string }) => `${o.method} ${o.path}`)).to.have.members(CONTRACT_OPERATIONS.map((op) => `${op.method} ${op.path}`));
    expect(brief.languages).to.deep.equal(['en', 'fr']);
    expect(brief.policies.read_only).to.equal(true);
    expect(brief.policies.customer_data).to.match(/^none/);
    expect(brief.policies.rate_limits).to.include({ per_ip_per_minute: 45, verify_per_ip_per_minute: 7 });
    expect(brief.policies.custom_order_delivery_weeks).to.deep.equal({ min: 8, max: 12 });
    expect(brief.links.openapi).to.equal('https://api.aurele.example/.well-known/openapi-public.json');
    expect(brief.links.mcp).to.equal('https://api.aurele.example/mcp');
    // What signed answers and proofs are checked against, and the budget all clients' verifications share.
    expect(brief.links.jwks).to.equal('https://api.aurele.example/.well-known/jwks.json');
    expect(brief.links.transparency_log).to.equal('https://api.aurele.example/transparency');
    expect(brief.policies.rate_limits.verify_all_clients_per_minute).to.equal(321);
  });

  it('lists the transparency log\'s public endpoints in llms.txt and llms-full.txt, with the one base URL a tlog-tiles client is given (issue 44, item 4)', async () => {
    const llms = await (await get('/llms.txt')).text();
    const section = llms.slice(llms.indexOf('## Transparency log'));
    expect(section, 'a section of its own').to.match(/^## Transparency log\n/);
    expect(section).to.include('https://api.aurele.example/transparency is its base URL');
    for (const op of CONTRACT_LOG_ENDPOINTS) expect(section).to.include(`- [${op.method} ${op.path}](https://api.aurele.example${op.path})`);
    const full = await (await get('/llms-full.txt')).text();
    for (const op of CONTRACT_LOG_ENDPOINTS) expect(full).to.include(`### ${op.method} ${op.path}\n`);
    expect(full).to.include('`https://api.aurele.example/transparency` is the log\'s base URL');
    expect(full).to.include('under `/admin/transparency` to a key of scope `audit`');
    expect(full).to.include("curl 'https://api.aurele.example/api/public/transparency/inclusion?position=1'");
    expect(full).to.include('- 200 The signed checkpoint (`text/plain; charset=utf-8`)');
  });

  it('names the MCP endpoint in llms.txt and llms-full.txt, with every tool of the contract (docs/api.md, "Agents over MCP")', async () => {
    expect(await (await get('/llms.txt')).text()).to.include('](https://api.aurele.example/mcp)');
    const full = await (await get('/llms-full.txt')).text();
    expect(full).to.include('POST https://api.aurele.example/mcp');
    for (const tool of ['get_status', 'search_catalogue', 'get_watch', 'list_collections', 'get_configurator_options', 'quote_price', 'verify_serial']) {
      expect(full).to.include(`\`${tool}\``);
    }
  });

  it('answers 304 to a matching If-None-Match on every file: the tag, its weak form, a list holding it, or * (RFC 9110, 13.1.2)', async () => {
    for (const path of ['/llms.txt', '/llms-full.txt', '/.well-known/openapi-public.json', '/.well-known/ai-brief.json', '/.well-known/jwks.json', '/docs']) {
      const first = await get(path);
      const etag = first.headers.get('etag')!;
      expect(etag, path).to.match(/^".+"$/);
      for (const header of [etag, `W/${etag}`, `"other", W/${etag}`, '*']) {
        const again = await get(path, { 'if-none-match': header });
        expect(again.status, `${path} ${header}`).to.equal(304);
        expect(await again.text(), `${path} ${header}`).to.equal('');
      }
      expect((await get(path, { 'if-none-match': 'W/"other", "else"' })).status, path).to.equal(200);
    }
  });

  it('serves /docs as a Swagger UI page loading only local files of swagger-ui-dist, with no online validator', async () => {
    const page = await get('/docs');
    expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).to.include("script-src 'self'");
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).to.be.above(3);
    for (const source of sources) {
      expect(source, source).to.match(/^\/docs\/assets\//);
      const asset = await get(source);
      expect(asset.status, source).to.equal(200);
      await asset.arrayBuffer();
    }
    const bundle = await get('/docs/assets/swagger-ui-bundle.js');
    expect(bundle.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect((await bundle.text()).length).to.be.above(100_000);
    const init = await (await get('/docs/assets/init.js')).text();
    expect(init).to.include('"/.well-known/openapi-public.json"');
    expect(init).to.include('validatorUrl: null');
  });

  it('serves no package file outside the list the page needs', async () => {
    // Built-in names of a plain object too (issue 17, finding 7): they once reached readFileSync and gave 500.
    for (const name of ['package.json', 'index.html', '..%2F..%2Fpackage.json', 'swagger-initializer.js', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect((await get(`/docs/assets/${name}`)).status, name).to.equal(404);
    }
  });
});
