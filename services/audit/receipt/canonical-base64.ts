/**
 * Whether `text` is the one standard base64 spelling of its bytes. Node's decoder also takes whitespace, missing
 * padding, URL-safe characters and unused bits set, so a receipt read with it alone would have several spellings of
 * one proof; the service writes the canonical one (shared/read-model/transparency/serial-index.ts), and only that
 * one is read.
 */
export const isCanonicalBase64 = (text: string): boolean => text !== '' && Buffer.from(text, 'base64').toString('base64') === text;
