import { ToolRefusal } from "./builtInTool.ts";

/**
 * Refuses a GET whose query string the model wrote itself, on a host outside the manifest's
 * `tool_domains` (a domain covers its subdomains): a query string is where a model talked into it
 * would put what it must not send out (its instructions, the renter's input). A URL copied whole,
 * host, path and query, from what the model was given (the task, the input, a page a tool read)
 * carries nothing the model composed, so a link found on a page is still followed. The host is part
 * of what must have been read, so that a piece of the input cannot be sent elsewhere as a query.
 */
export function refuseComposedQuery(
  url: string,
  toolDomains: readonly string[],
  wasRead: (text: string) => boolean,
): void {
  const query = queryOf(url);
  if (query === "") return;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return; // Not a URL: the outbound guard refuses it.
  }
  if (toolDomains.some((domain) => host === domain || host.endsWith(`.${domain}`))) return;
  const copied = withoutScheme(url);
  // A link copied from an HTML page has its `&` written `&amp;` there.
  if (wasRead(copied) || wasRead(copied.replaceAll("&", "&amp;"))) return;
  throw new ToolRefusal(
    `the URL, with its query string, is not one the task, the input or a page read gave, and ${host} is ` +
      "not one of the agent's tool_domains: on other hosts, only URLs without a query string of " +
      "the model's own are fetched",
  );
}

/** The URL as written from its host to its fragment. */
function withoutScheme(url: string): string {
  const start = url.indexOf("://");
  const end = url.indexOf("#");
  return url.slice(start === -1 ? 0 : start + 3, end === -1 ? undefined : end);
}

/** The query string as written, without its "?": from the first "?" before the fragment. */
function queryOf(url: string): string {
  const end = url.indexOf("#");
  const beforeFragment = end === -1 ? url : url.slice(0, end);
  const start = beforeFragment.indexOf("?");
  return start === -1 ? "" : beforeFragment.slice(start + 1);
}
