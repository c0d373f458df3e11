/**
 * The price of a custom configuration, computed from a configurator document and the chosen model: pure, in integer cents, every
 * request error collected (none stops the others). Every offered category is priced: the chosen option or the
 * category's default.
 */
import { CATEGORY_KEYS, type CategoryKey, type Language } from '../../../events/common.ts';
import { centsToEuros } from '../../../money/cents.ts';
import type { ConfiguratorDoc } from '../../documents/documents.ts';
import type { PriceRequest, PriceResult } from '../schemas/configurator.schema.ts';
import { issue, type ValidationIssue } from '../validation/validation-issue.ts';
import type { CollectionModel, ModelRefusal } from './collection-models.ts';
import { CUSTOM_ORDER_DELIVERY } from './options.operation.ts';

/** Spellings accepted for a category key besides the key itself. */
const KEY_ALIASES = new Map<string, CategoryKey>([['case-back', 'case_back'], ['caseback', 'case_back']]);
const KNOWN_KEYS = new Set<string>(CATEGORY_KEYS);

type PriceQuote = { ok: true; result: PriceResult } | { ok: false; issues: ValidationIssue[] };

/** Chosen option codes by canonical category key; the canonical spelling wins over an alias. */
function chosenOptions(options: Record<string, string>, issues: ValidationIssue[]): Map<CategoryKey, { sentAs: string; code: string }> {
  const chosen = new Map<CategoryKey, { sentAs: string; code: string }>();
  for (const [sentAs, code] of Object.entries(options)) {
    const key = KNOWN_KEYS.has(sentAs) ? (sentAs as CategoryKey) : KEY_ALIASES.get(sentAs);
    if (!key) {
      issues.push(issue.valueError(['body', 'options', sentAs], code, `unknown option category '${sentAs}'`));
      continue;
    }
    if (chosen.has(key) && sentAs !== key) continue;
    chosen.set(key, { sentAs, code });
  }
  return chosen;
}

export function unknownCollection(request: PriceRequest): ValidationIssue[] {
  const issues = [issue.valueError(['body', 'collection'], request.collection, `unknown collection '${request.collection}'`)];
  chosenOptions(request.options ?? {}, issues);
  return issues;
}

/** `found`: the request's model among the collection's, or why it is not one of them. */
export function quotePrice(doc: ConfiguratorDoc, found: CollectionModel | ModelRefusal, request: PriceRequest, lang: Language): PriceQuote {
  const issues: ValidationIssue[] = [];
  const code = doc.collection.code;
  const model = 'refused' in found ? undefined : found;
  if ('refused' in found) issues.push(issue.valueError(['body', 'model_ref'], request.model_ref, found.refused));

  const chosen = chosenOptions(request.options ?? {}, issues);
  const optionLines: PriceResult['options'] = [];
  let optionsCents = 0;
  for (const category of doc.categories) {
    const choice = chosen.get(category.key);
    if (category.options.length === 0) {
      if (choice) {
        issues.push(issue.valueError(['body', 'options', choice.sentAs], choice.code, `category '${category.key}' is not offered by collection '${code}'`));
      }
      continue;
    }
    const option = choice
      ? category.options.find((o) => o.code === choice.code.toLowerCase())
      : category.options.find((o) => o.default);
    if (!option) {
      if (choice) {
        issues.push(issue.valueError(['body', 'options', choice.sentAs], choice.code, `unknown option '${choice.code}' for category '${category.key}'`));
      }
      continue;
    }
    optionsCents += option.price_cents;
    optionLines.push({ category: category.key, code: option.code, label: option.label, price_eur: centsToEuros(option.price_cents) });
  }

  const quantities = request.accessories ?? {};
  for (const [accessoryCode, quantity] of Object.entries(quantities)) {
    const accessory = doc.accessories.find((a) => a.code === accessoryCode);
    if (!accessory) issues.push(issue.valueError(['body', 'accessories', accessoryCode], quantity, `unknown accessory '${accessoryCode}'`));
    else if (quantity < 0 || quantity > accessory.max_quantity) {
      issues.push(issue.valueError(['body', 'accessories', accessoryCode], quantity,
        `quantity of '${accessoryCode}' must be between 0 and ${accessory.max_quantity}`));
    }
  }
  if (issues.length > 0 || !model) return { ok: false, issues };

  const accessoryLines: PriceResult['accessories'] = [];
  let accessoriesCents = 0;
  for (const accessory of doc.accessories) {
    const quantity = quantities[accessory.code] ?? 0;
    if (quantity === 0) continue;
    const lineCents = accessory.unit_price_cents * quantity;
    accessoriesCents += lineCents;
    accessoryLines.push({
      code: accessory.code, label: accessory.label, quantity,
      unit_price_eur: centsToEuros(accessory.unit_price_cents), total_eur: centsToEuros(lineCents),
    });
  }
  return {
    ok: true,
    result: {
      collection: code,
      model_ref: model.model_ref,
      currency: 'EUR',
      base_price_eur: centsToEuros(model.base_price_cents),
      options: optionLines,
      options_total_eur: centsToEuros(optionsCents),
      accessories: accessoryLines,
      accessories_total_eur: centsToEuros(accessoriesCents),
      total_eur: centsToEuros(model.base_price_cents + optionsCents + accessoriesCents),
      delivery: { ...CUSTOM_ORDER_DELIVERY },
      lang,
    },
  };
}
