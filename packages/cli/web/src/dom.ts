/** A tiny element builder. Text always goes in as text nodes, never as HTML. */
type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false));
  return element;
}

/** The page's element `#id`, checked to be of `type` (a page that does not match the script fails at once, by name). */
export function byId(id: string): HTMLElement;
export function byId<T extends HTMLElement>(id: string, type: abstract new () => T): T;
export function byId(id: string, type: abstract new () => HTMLElement = HTMLElement): HTMLElement {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`missing #${id} (${type.name})`);
  return element;
}

/** `text` with every case-insensitive occurrence of `query` wrapped in <mark>. */
export function highlighted(text: string, query: string): (string | HTMLElement)[] {
  if (query === '') return [text];
  const parts: (string | HTMLElement)[] = [];
  const lower = text.toLowerCase();
  const needle = query.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, from)) {
    if (at > from) parts.push(text.slice(from, at));
    parts.push(h('mark', {}, text.slice(at, at + needle.length)));
    from = at + needle.length;
  }
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}
