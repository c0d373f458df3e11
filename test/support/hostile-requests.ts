/**
 * fast-check arbitraries for hostile HTTP requests against the public API: every operation's path with random and
 * malicious segments, queries (operators, `__proto__`, repeated keys, huge and badly percent-encoded values),
 * headers (wrong content types, forged forwarding, junk validators) and bodies (bad JSON, arrays, nesting as deep as
 * the body limit allows, prototype keys, oversized). Requests are plain data, sent by the test with any HTTP client.
 */
import fc from 'fast-check';

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Strings that broke real services: operators, scripts, traversal, encodings, injection classics. */
const NASTY = [
  '', ' ', '%', '%%', '%zz', '%E0%A4%A', '%C0%AF', '%00', '%FF%FE', '%uD800', '..%2F..%2Fetc%2Fpasswd', '../../etc/passwd',
  '__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', '$where', '$gt', '$ne', '$regex', '$expr',
  '{"$gt":""}', '[$ne]=1', '(a+)+$', '.*', '\\', '\\u0000', "' OR 1=1 --", '<script>alert(1)</script>', '${7*7}',
  'NaN', 'Infinity', '-0', '1e309', '-1', '0x10', '9007199254740993', 'true', 'null', 'undefined', '[]', '{}',
  'Édition', 'ÉDITION', 'ǅ', 'ﬀ', '\u202e', '😀', 'RG-100', 'regate', 'AUR-0001', 'aur-0666', 'en', 'fr',
];

const percentEncoded = (text: string) => encodeURIComponent(text);
/** A URL component: a nasty constant as it is, a random text percent-encoded, or a huge run of one character. */
export const urlPiece: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(percentEncoded) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 60 }).map((s) => s.replace(/[\s#?]/g, '')) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 12_000 }).map((n) => 'A'.repeat(n)) },
);

const QUERY_KEYS = [
  'lang', 'collection', 'search', 'min_price', 'max_price', 'price_min', 'price_max', 'in_stock', 'sort', 'limit', 'offset',
  '__proto__', 'constructor', 'lang[]', 'search[$regex]', 'limit[$gt]', '__proto__[polluted]', 'constructor[prototype][x]',
];
const queryPair = fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), urlPiece), urlPiece).map(([k, v]) => `${k}=${v}`);
export const queryString: fc.Arbitrary<string> = fc.array(queryPair, { maxLength: 6 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));

const PATHS: ((piece: string) => string)[] = [
  () => '/api/public/status',
  () => '/api/public/catalogue',
  (p) => `/api/public/catalogue/${p}`,
  () => '/api/public/collections',
  (p) => `/api/public/configurator/options/${p}`,
  () => '/api/public/configurator/price',
  (p) => `/api/public/verify/${p}`,
  () => '/llms.txt',
  () => '/llms-full.txt',
  () => '/.well-known/openapi-public.json',
  () => '/.well-known/ai-brief.json',
  (p) => `/api/public/${p}`,
  (p) => `/${p}`,
  (p) => `/api/public/catalogue/${p}/${p}`,
  () => '//api//public//status',
];
export const hostilePath: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 0, max: PATHS.length - 1 }), urlPiece, queryString)
  .map(([i, piece, query]) => `${PATHS[i]!(piece)}${query}`);

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/merge-patch+json', 'text/plain',
  'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', ';;;', 'application/json; charset=utf-7',
];
const header = fc.oneof(
  fc.constantFrom(...CONTENT_TYPES).map((v) => ['content-type', v] as const),
  fc.constant(['origin', 'https://evil.example'] as const),
  urlPiece.map((v) => ['if-none-match', v.slice(0, 200)] as const),
  fc.constantFrom('not-an-ip', '::1', '1.2.3.4, 5.6.7.8', '2001:db8::1', '999.999.999.999', '').map((v) => ['x-forwarded-for', v] as const),
  fc.constantFrom('application/xml', '*/*', 'text/html;q=0', '').map((v) => ['accept', v] as const),
  fc.constantFrom('gzip', 'br', 'identity;q=0').map((v) => ['accept-encoding', v] as const),
  fc.constantFrom('Bearer x', 'Basic Zm9vOmJhcg==').map((v) => ['authorization', v] as const),
);
export const hostileHeaders: fc.Arbitrary<Record<string, string>> = fc
  .array(header, { maxLength: 4 })
  .map((pairs) => Object.fromEntries(pairs));

const validPrice = { collection: 'regate', model_ref: 'RG-100', options: { case: 'gold' }, accessories: { strap: 2 } };
const RAW_BODIES = [
  '', '{', '{"collection":', 'null', '[]', '[1,2,3]', '"regate"', '42', 'true', '{"a":1,}', "{'collection':'regate'}", '\u0000',
  '{"__proto__":{"polluted":true},"collection":"regate","model_ref":"RG-100"}',
  '{"constructor":{"prototype":{"polluted":true}},"collection":"regate","model_ref":"RG-100"}',
  '{"collection":{"$ne":null},"model_ref":{"$gt":""}}', '{"collection":"regate","model_ref":"RG-100","options":{"__proto__":"x"}}',
  '{"collection":"regate","model_ref":"RG-100","accessories":{"strap":1e309}}', '{"collection":"regate","model_ref":"RG-100","accessories":{"strap":-0.5}}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`, `{"collection":"${'x'.repeat(16 * 1024)}"}`, `{"collection":"${'é'.repeat(8200)}"}`, '\uFEFF{"collection":"regate"}',
];
/** Nesting up to the 16 KiB body limit: arrays or objects, closed or not, alone or as a price body's options. */
const BODY_LIMIT = 16 * 1024;
const PRICE_PREFIX = '{"collection":"abysse","model_ref":"AUR-DV-006","options":';
export const deepBody: fc.Arbitrary<string> = fc
  .record({ open: fc.constantFrom('[', '{"a":', '[1,'), inPrice: fc.boolean(), closed: fc.boolean(), share: fc.double({ min: 0, max: 1, noNaN: true }) })
  .map(({ open, inPrice, closed, share }) => {
    const prefix = inPrice ? PRICE_PREFIX : '';
    const close = open === '[' || open === '[1,' ? ']' : '}';
    const room = BODY_LIMIT - prefix.length - (inPrice ? 1 : 0);
    const depth = Math.max(1, Math.floor((share * room) / (open.length + (closed ? close.length : 0))));
    const middle = open === '[1,' ? '1' : '0';
    return `${prefix}${open.repeat(depth)}${closed ? `${middle}${close.repeat(depth)}` : ''}${inPrice && closed ? '}' : ''}`;
  })
  .filter((body) => Buffer.byteLength(body) <= BODY_LIMIT);
export const hostileBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...RAW_BODIES),
  deepBody,
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.record({
    collection: fc.oneof(fc.constantFrom('regate', 'REGATE', 'abysse'), urlPiece, fc.jsonValue()),
    model_ref: fc.oneof(fc.constantFrom('RG-100', 'RG-200', 'RG-300'), urlPiece, fc.jsonValue()),
    options: fc.oneof(fc.constant(null), fc.dictionary(fc.constantFrom('case', 'dial', 'case-back', 'caseback', '__proto__', '$where'), fc.oneof(fc.constantFrom('gold', 'blue', 'steel'), fc.jsonValue()))),
    accessories: fc.oneof(fc.constant(null), fc.dictionary(fc.constantFrom('strap', 'box', 'constructor'), fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double(), fc.jsonValue()))),
  }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
  fc.constant(JSON.stringify(validPrice)),
);

const METHODS = ['GET', 'GET', 'GET', 'POST', 'POST', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'PROPFIND'];
export const hostileRequest: fc.Arbitrary<HostileRequest> = fc
  .record({
    method: fc.constantFrom(...METHODS), path: hostilePath, headers: hostileHeaders, body: fc.option(hostileBody, { nil: undefined }),
    toPrice: fc.boolean(), query: queryString,
  })
  // Half the POSTs go to the one operation that reads a body, so bodies are mostly parsed rather than refused unread.
  .map(({ toPrice, query, ...r }) => (r.method === 'POST' && toPrice ? { ...r, path: `/api/public/configurator/price${query}` } : r))
  // Node itself answers 431 to a request head above 16 KiB (tested on its own): the fuzz stays below, for the app.
  .filter((r) => r.path.length < 15_000)
  .map((r) => (r.body === undefined || r.method === 'GET' || r.method === 'HEAD' ? { method: r.method, path: r.path, headers: r.headers } : r));

/**
 * Request targets of every form RFC 9112 (section 3.2) knows and a few it does not: origin-form (the paths above),
 * absolute-form with odd schemes, userinfo, IPv6 literals with and without brackets, odd ports, percent-encoded and
 * very long hosts, authority-form, asterisk-form. Printable ASCII only, as a request line allows.
 */
const HOSTS = [
  '127.0.0.1', 'localhost', 'WatchCat.Example', 'evil.example', '[::1]', '[2001:db8::1]', '[::ffff:127.0.0.1]', '[fe80::1%25eth0]',
  '::1', '[::1', '::1]', '[]', '[::1]]', '%65vil.example', 'ex%00ample', '', '.', '..', '-', '0x7f.1', '999.999.999.999',
];
const targetHost: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTS) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 8_000 }).map((n) => `${'h'.repeat(n)}.example`) },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9.:%[\]-]{1,30}$/) },
);
const targetPort = fc.constantFrom('', ':', ':0', ':80', ':443', ':65535', ':65536', ':99999999', ':-1', ':abc', ':8080:9090');
const userinfo = fc.constantFrom('', 'user@', 'user:pass@', '@', 'a@b@', '%75ser:%70@', ':@');
const scheme = fc.constantFrom('http://', 'https://', 'HTTP://', 'ftp://', 'http:/', 'http:', '//', 'javascript:');
const printable = (text: string) => [...text].map((c) => (/[\u0021-\u007e]/.test(c) ? c : encodeURIComponent(c))).join('');

export const hostileTarget: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: hostilePath },
  { weight: 4, arbitrary: fc.tuple(scheme, userinfo, targetHost, targetPort, fc.oneof(hostilePath, fc.constantFrom('', '?x=1', '#frag'))).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.tuple(targetHost, targetPort).map(([host, port]) => `${host}${port}`) },
  { weight: 1, arbitrary: fc.constantFrom('*', '**', '*/api/public/status', '%', '?x', '#', '%2Fapi%2Fpublic%2Fstatus', '\\api\\public\\status') },
).map(printable).filter((target) => target.length > 0 && target.length < 12_000);

/** Components and labels that name what JavaScript objects already hold, and the components RFC 9421 defines. */
const SIGNATURE_NAMES = [
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', 'sig1', 'a', 'content-digest',
  'content-type', 'etag', 'retry-after', 'cache-control', 'signature', 'signature-input', 'x-not-there',
  '@status', '@method', '@path', '@query', '@authority', '@target-uri', '@scheme', '@request-target', '@query-param', '@signature-params', '@',
];
const componentParams = fc.constantFrom('', ';req', ';sf', ';bs', ';key="a"', ';name="lang"', ';req;sf', ';tr', ';req=?0');
const component = fc.tuple(fc.oneof(fc.constantFrom(...SIGNATURE_NAMES), fc.stringMatching(/^[a-z@][a-z0-9_@.*-]{0,12}$/)), componentParams)
  .map(([name, params]) => `"${name}"${params}`);
const signatureParams = fc.array(fc.constantFrom(
  ';alg="ed25519"', ';alg="rsa-pss-sha512"', ';nonce="n-1"', ';tag="t"', ';created=1', ';expires=1', ';keyid="k"', ';nonce=1', ';tag=?1', ';nonce="' + 'n'.repeat(900) + '"',
), { maxLength: 4 }).map((params) => params.join(''));
const label = fc.oneof(fc.constantFrom(...SIGNATURE_NAMES.filter((name) => /^[a-z_*][a-z0-9_*.-]*$/.test(name))), fc.stringMatching(/^[a-z*][a-z0-9_*.-]{0,10}$/));
const signatureDictionary = fc.array(
  fc.tuple(label, fc.array(component, { maxLength: 20 }), signatureParams).map(([name, items, params]) => `${name}=(${items.join(' ')})${params}`),
  { minLength: 1, maxLength: 6 },
).map((members) => members.join(', '));

/** `Accept-Signature` values: well-formed dictionaries of any size, near-misses and noise, up to about 2 KiB. */
export const hostileAcceptSignature: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: signatureDictionary },
  { weight: 1, arbitrary: fc.constantFrom('', 'sig1', 'sig1=', '=', 'sig1=()', 'sig1=(', 'sig1=("@status"', 'sig1="x"', 'sig1=?1', 'SIG1=("@status")', 'sig1=("@status");;', ',,,') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 2_000 }) },
).map((value) => value.replace(/[^\u0020-\u007e]/g, ' ').trim());

/** The tools and their parameters (docs/api.md, "Agents over MCP"), with names no tool has. */
const TOOL_NAMES = ['get_status', 'search_catalogue', 'get_watch', 'list_collections', 'get_configurator_options', 'quote_price', 'verify_serial', 'drop_table', '__proto__', ''];
const TOOL_ARGUMENTS = [...QUERY_KEYS, 'reference', 'serial', 'model_ref', 'model_reference', 'options', 'accessories'];
const RPC_METHODS = ['tools/call', 'tools/call', 'tools/call', 'tools/list', 'resources/list', 'resources/read', 'initialize', 'ping', 'notifications/initialized', 'prompts/list', 'completion/complete', 'logging/setLevel', 'rpc.discover', '__proto__'];
const rpcId = fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.jsonValue({ maxDepth: 2 }), fc.constant(9007199254740993));
const toolArguments = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.constantFrom(...TOOL_ARGUMENTS), fc.oneof(urlPiece, fc.jsonValue({ maxDepth: 3 })), { maxKeys: 5 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
const rpcParams = fc.oneof(
  fc.record({ name: fc.oneof(fc.constantFrom(...TOOL_NAMES), fc.jsonValue({ maxDepth: 1 })), arguments: toolArguments }, { requiredKeys: [] }),
  fc.record({ uri: fc.oneof(fc.constantFrom('/llms-full.txt', 'http://127.0.0.1/llms-full.txt', 'file:///etc/passwd'), urlPiece) }),
  fc.record({ protocolVersion: fc.constantFrom('2025-06-18', '2024-11-05', 'x'), capabilities: fc.jsonValue({ maxDepth: 2 }), clientInfo: fc.record({ name: urlPiece, version: urlPiece }) }, { requiredKeys: [] }),
  fc.jsonValue({ maxDepth: 4 }),
);
const rpcMessage = fc.record({
  jsonrpc: fc.oneof({ weight: 6, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
  id: rpcId,
  method: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...RPC_METHODS) }, { weight: 1, arbitrary: urlPiece }),
  params: rpcParams,
}, { requiredKeys: ['method'] });
/** JSON-RPC bodies for `/mcp`: messages well or badly formed, batches, deep params, and the raw bad bodies above. */
export const hostileJsonRpcBody: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: rpcMessage.map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.array(rpcMessage, { maxLength: 4 }).map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: deepBody.map((deep) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"verify_serial","arguments":{"serial":${deep.slice(0, BODY_LIMIT - 90)}}}}`) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES) },
);
const MCP_ACCEPTS = ['application/json, text/event-stream', 'application/json, text/event-stream', 'application/json', 'text/event-stream', '*/*'];
/** POSTs (mostly) to `/mcp`, with the headers of a Streamable HTTP client, or some of them wrong. */
export const hostileMcpRequest: fc.Arbitrary<HostileRequest> = fc
  .record({
    method: fc.constantFrom('POST', 'POST', 'POST', 'POST', 'GET', 'DELETE', 'OPTIONS'),
    path: fc.constantFrom('/mcp', '/mcp', '/mcp', '/MCP', '/mcp/', '/mcp?x=1'),
    accept: fc.constantFrom(...MCP_ACCEPTS),
    contentType: fc.constantFrom('application/json', 'application/json', 'text/plain', ';;;'),
    protocol: fc.constantFrom('2025-06-18', '2025-03-26', '', '1999-01-01'),
    headers: hostileHeaders,
    body: hostileJsonRpcBody,
  })
  .map(({ method, path, accept, contentType, protocol, headers, body }) => ({
    method, path,
    headers: { accept, 'content-type': contentType, ...(protocol ? { 'mcp-protocol-version': protocol } : {}), ...headers },
    ...(method === 'GET' ? {} : { body }),
  }));
