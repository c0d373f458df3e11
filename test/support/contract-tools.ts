/**
 * The MCP tools the contract names (docs/api.md, "Agents over MCP"), for the tests that check ours against it: each
 * tool's operation and parameters, from "The seven operations"; `*` marks a required one.
 */
export const CONTRACT_TOOLS: Record<string, { operation: string; params: string[] }> = {
  get_status: { operation: 'GET /api/public/status', params: ['lang'] },
  search_catalogue: {
    operation: 'GET /api/public/catalogue',
    params: ['lang', 'collection', 'search', 'min_price', 'max_price', 'in_stock', 'sort', 'limit', 'offset'],
  },
  get_watch: { operation: 'GET /api/public/catalogue/{reference}', params: ['*reference', 'lang'] },
  list_collections: { operation: 'GET /api/public/collections', params: ['lang'] },
  get_configurator_options: { operation: 'GET /api/public/configurator/options/{collection}', params: ['*collection', 'lang'] },
  quote_price: { operation: 'POST /api/public/configurator/price', params: ['*collection', '*model_ref', 'options', 'accessories', 'lang'] },
  // `proof`: the serial index proof a verification carries on request (issue 45; docs/audit.md, "Serial index proofs").
  verify_serial: { operation: 'GET /api/public/verify/{serial}', params: ['*serial', 'lang', 'proof'] },
};

type Json = Record<string, any>;

/** An answer without what moves with the time of the request: a verification's `checked_at`, the read models' lag. */
export const timeless = (body: Json): Json => {
  const { checked_at: _checkedAt, ...rest } = body;
  const readModel = rest['read_model'] as { projections?: Json[] } | undefined;
  if (readModel?.projections === undefined) return rest;
  const projections = readModel.projections.map(({ lag_seconds: _lag, ...projection }) => projection);
  return { ...rest, read_model: { ...readModel, projections } };
};
