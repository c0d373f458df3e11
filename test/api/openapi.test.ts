import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { loadConfig } from '../../shared/config/config.ts';
import { buildOpenApiDocument } from '../../read-api/discovery/openapi.ts';
import { legacyShapes } from '../../read-api/discovery/legacy-shapes/index.ts';
import { publicOperations } from '../../shared/read-model/public-api/operations/index.ts';
import { CONTRACT_LOG_ENDPOINTS, CONTRACT_OPERATIONS } from '../support/contract-answers.ts';

type Json = Record<string, any>;

describe('OpenAPI document of the public operations', () => {
  const config = loadConfig({ PUBLIC_BASE_URL: 'https://api.aurele.example' });
  const document = buildOpenApiDocument(publicOperations, config) as Json;
  const operation = (path: string, method = 'get') => document['paths'][path][method] as Json;
  const parameter = (path: string, name: string) => (operation(path)['parameters'] as Json[]).find((p) => p['name'] === name)!;

  it('passes the redocly linter with no error, and warns only of the unused section 2.4 shapes', async function () {
    this.timeout(30_000);
    const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    try {
      const file = join(dir, 'openapi-public.json');
      writeFileSync(file, JSON.stringify(document));
      writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended\ntelemetry: off\n');
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' };
      // Found the way an import is, not from the working directory: the mutation tester runs the suite from a copy.
      const redocly = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');
      const lint = promisify(execFile)(process.execPath, [redocly, 'lint', '--format=json', file], { cwd: dir, env });
      const { stdout } = await lint.catch((error: { stdout: string }) => ({ stdout: error.stdout }));
      const report = JSON.parse(stdout) as { totals: { errors: number }; problems: { ruleId: string; severity: string; message: string }[] };
      expect(report.problems.filter((p) => p.severity === 'error').map((p) => p.message)).to.deep.equal([]);
      expect(report.totals.errors).to.equal(0);
      const warned = new Set(report.problems.map((p) => p.ruleId));
      expect([...warned].filter((rule) => rule !== 'no-unused-components')).to.deep.equal([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is OpenAPI 3.1.0, version 1.0.0, served from the configured base URL, without security', () => {
    expect(document['openapi']).to.equal('3.1.0');
    expect(document['info']['version']).to.equal('1.0.0');
    expect(document['servers']).to.deep.equal([{ url: 'https://api.aurele.example', description: 'This deployment' }]);
    expect(document['security']).to.deep.equal([]);
  });

  it('names the relative / as its server when PUBLIC_BASE_URL is not set, so /docs calls the instance that served it (issue 11, item 4)', () => {
    const unset = buildOpenApiDocument(publicOperations, loadConfig({ PORT: '3010' })) as Json;
    expect(unset['servers']).to.deep.equal([{ url: '/', description: 'This deployment' }]);
    expect(unset['info']['contact']).to.deep.equal({ name: document['info']['contact']['name'] });
  });

  it('describes the seven operations of the contract and the transparency log\'s public endpoints, and no other, each with its own id and declared tags', () => {
    const described = Object.entries(document['paths'] as Json).flatMap(([path, item]) => Object.keys(item as Json).map((method) => `${method.toUpperCase()} ${path}`));
    expect(described).to.have.members([...CONTRACT_OPERATIONS, ...CONTRACT_LOG_ENDPOINTS].map((op) => `${op.method} ${op.path}`));
    const operations = Object.values(document['paths'] as Json).flatMap((item) => Object.values(item as Json) as Json[]);
    const ids = operations.map((op) => op['operationId']);
    expect(new Set(ids).size, 'operation ids are unique').to.equal(7 + 6);
    for (const id of ids) expect(id).to.be.a('string').and.match(/^[a-zA-Z]+$/);
    const tags = (document['tags'] as Json[]).map((t) => t['name']);
    for (const op of operations) expect(tags).to.include.members(op['tags']);
  });

  it('gives query parameters their real types: integer, number, boolean and enum, optional when defaulted', () => {
    const catalogue = '/api/public/catalogue';
    expect(parameter(catalogue, 'limit')['schema']).to.include({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
    expect(parameter(catalogue, 'min_price')['schema']).to.include({ type: 'number', minimum: 0 });
    expect(parameter(catalogue, 'in_stock')['schema']).to.include({ type: 'boolean', default: false });
    expect(parameter(catalogue, 'sort')['schema']).to.deep.include({ type: 'string', enum: ['name', 'price_asc', 'price_desc', 'collection'] });
    expect(parameter(catalogue, 'lang')['schema']).to.deep.include({ type: 'string', enum: ['en', 'fr'] });
    expect(parameter(catalogue, 'limit')['required']).to.equal(false);
    expect(parameter(catalogue, 'price_min')).to.include({ in: 'query', required: false });
  });

  it('marks path parameters required and keeps their constraints', () => {
    expect(parameter('/api/public/verify/{serial}', 'serial')).to.include({ in: 'path', required: true });
    expect(parameter('/api/public/verify/{serial}', 'serial')['schema']['pattern']).to.be.a('string');
    expect(parameter('/api/public/catalogue/{reference}', 'reference')).to.include({ in: 'path', required: true });
  });

  it('gives the price operation its required JSON body, every operation and log endpoint 200, 422 and 429 answers and the X-Min-Position header', () => {
    const body = operation('/api/public/configurator/price', 'post')['requestBody'];
    expect(body['required']).to.equal(true);
    const ref = body['content']['application/json']['schema']['$ref'] as string;
    const price = document['components']['schemas'][ref.split('/').pop()!];
    expect(price['required']).to.include.members(['collection', 'model_ref']);
    // docs/api.md, "Read your writes": any public request may send `X-Min-Position`, and one that is not canonical
    // digits is a 422, the log's files included (they take nothing else to validate).
    for (const [path, item] of Object.entries(document['paths'] as Json)) {
      for (const op of Object.values(item as Json) as Json[]) {
        expect(op['responses'], path).to.include.keys('200', '429');
        expect(op['responses']['429']['headers']).to.include.keys('Retry-After', 'X-RateLimit-Reset');
        expect(op['responses']['422']['content']['application/json']['schema'], path).to.deep.equal({ $ref: '#/components/schemas/HTTPValidationError' });
        expect((op['parameters'] as Json[]).filter((p) => p['in'] === 'header').map((p) => p['name']), path).to.deep.equal(['X-Min-Position']);
      }
    }
    // docs/api.md, "Proofs and tiles": an inclusion proof's leaf is named by `index` or by `position`, never both.
    const inclusion = operation('/api/public/transparency/inclusion');
    for (const name of ['index', 'position']) {
      const parameter = (inclusion['parameters'] as Json[]).find((p) => p['name'] === name)!;
      expect(parameter['required'], name).to.equal(false);
      expect(parameter['description'], name).to.include('not both');
    }
    expect((operation('/transparency/checkpoint')['parameters'] as Json[]).map((p) => [p['in'], p['name']])).to.deep.equal([['header', 'X-Min-Position']]);
    expect(operation('/api/public/catalogue/{reference}')['responses']).to.include.keys('404');
  });

  it('gives the log\'s files their own media types: the checkpoint and the verifier key as text, a tile as bytes, the key history as JSON (issue 44, item 4)', () => {
    const media = (path: string) => Object.keys(operation(path)['responses']['200']['content'] as Json);
    expect(media('/transparency/checkpoint')).to.deep.equal(['text/plain; charset=utf-8']);
    expect(media('/.well-known/transparency/key')).to.deep.equal(['text/plain; charset=utf-8']);
    expect(media('/transparency/tile/{level}/{index}')).to.deep.equal(['application/octet-stream']);
    const history = operation('/.well-known/transparency/keys')['responses']['200']['content']['application/json']['schema'];
    expect(history).to.deep.equal({ $ref: '#/components/schemas/LogKeyHistory' });
    const key = document['components']['schemas']['LogKey'] as Json;
    expect(key['required']).to.have.members(['verifier_key', 'nbf']);
    expect(Object.keys(key['properties'])).to.have.members(['verifier_key', 'kid', 'nbf', 'exp', 'revoked']);
    // While the log refuses a rewritten history, each of its answers that reads the tree is a 503.
    for (const path of ['/transparency/checkpoint', '/transparency/tile/{level}/{index}', '/api/public/transparency/inclusion', '/api/public/transparency/consistency']) {
      expect(operation(path)['responses'], path).to.include.keys('503');
    }
    expect(document['servers']).to.have.length(1);
    expect(document['info']['description']).to.include('`/transparency` is its base URL');
  });

  it('names shared shapes in components and points to them, with no dangling reference', () => {
    const names = new Set(Object.keys(document['components']['schemas']));
    const refs = JSON.stringify(document).match(/#\/components\/schemas\/[A-Za-z0-9_]+/g) ?? [];
    expect(refs.length).to.be.above(10);
    for (const ref of refs) expect(names.has(ref.split('/').pop()!), ref).to.equal(true);
    expect(names).to.include('WatchSummary');
  });

  it('holds every section 2.4 shape faithfully under components.schemas', () => {
    const schemas = document['components']['schemas'] as Json;
    for (const shape of legacyShapes) {
      const title = String((shape as { title?: string }).title);
      expect(schemas, title).to.have.property(title);
    }
    expect(Object.keys(schemas)).to.include.members(['AcceptInviteRequest', 'SavCreate', 'NotificationCount', 'AiRound2Request']);
    expect(schemas['AcceptInviteRequest']['properties']['phone']).to.include({ minLength: 10, maxLength: 20 });
    expect(schemas['AcceptInviteRequest']['required']).to.have.members(['token', 'first_name', 'last_name', 'password', 'phone']);
    expect(schemas['InviteRequest']['properties']['role']).to.include({ default: 'horloger' });
    expect(schemas['InviteRequest']['required']).to.deep.equal(['email']);
    expect(schemas['OTPVerifyRequest']['properties']['code']).to.include({ minLength: 6, maxLength: 6 });
    expect(schemas['UserOut']['required']).not.to.include('last_login');
    expect(schemas['UserOut']['properties']['last_login']['anyOf']).to.deep.include({ type: 'null' });
    expect(schemas['SavCreate']['properties']['client']).to.deep.equal({ $ref: '#/components/schemas/ClientBase' });
    expect(schemas['SavCreate']['properties']['lang']).to.include({ default: 'fr' });
    expect(schemas['SavPayment']['properties']['payment_method']['enum']).to.deep.equal(['virement', 'cb', 'stripe', 'garantie']);
    expect(schemas['SavQuote']['properties']['quote_amount']['anyOf']).to.deep.include({ type: 'number', minimum: 0 });
    expect(schemas['SavListItem']['required']).not.to.include.members(['shipping_tracking', 'return_tracking']);
    expect(schemas['SavListItem']['properties']['reception_date']['anyOf']).to.deep.include({ type: 'string', format: 'date' });
    expect(schemas['NotificationCount']['properties']['notifications']['items']).to.deep.equal({ $ref: '#/components/schemas/NotificationOut' });
    expect(schemas['CategoryUpdate']['properties']['orange_pct']).to.include({ default: 10 });
    expect(schemas['ArticleCreate']['properties']['tags']).to.include({ type: 'string', default: '[]' });
  });
});
