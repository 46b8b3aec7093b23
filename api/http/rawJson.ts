/** What `JSON.rawJSON` makes: a value `JSON.stringify` writes as the text it holds. */
export type RawJson = { readonly rawJSON: string };

/** `JSON.rawJSON` (Node 21+; not yet in TypeScript's library). */
export const rawJson = (JSON as unknown as { rawJSON(text: string): RawJson }).rawJSON;
