/**
 * Building the page's elements: `h` for HTML, `svg` for the charts. An attribute `onclick` (any
 * `on…`) adds a listener; `true` sets a boolean attribute, `false`, `null` and `undefined` leave
 * it out; children may be nested lists, strings, numbers or nothing.
 */

/** What an element may hold. */
export type Child = Node | string | number | null | undefined | false | ReadonlyArray<Child>

/** An element's attributes and listeners. */
export type Attributes = Record<string, string | number | boolean | null | undefined | ((event: any) => void)>

const append = (parent: Element | DocumentFragment, child: Child): void => {
  if (child === null || child === undefined || child === false) return
  if (Array.isArray(child)) {
    for (const each of child as ReadonlyArray<Child>) append(parent, each)
    return
  }
  parent.append(typeof child === "number" ? String(child) : child as Node | string)
}

const decorate = <E extends Element>(element: E, attributes: Attributes | undefined, children: ReadonlyArray<Child>): E => {
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value)
    else if (value === true) element.setAttribute(name, "")
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value))
  }
  for (const child of children) append(element, child)
  return element
}

/** An HTML element: `h("button", { type: "button", onclick }, "Pause")`. */
export const h = <K extends keyof HTMLElementTagNameMap>(tag: K, attributes?: Attributes, ...children: ReadonlyArray<Child>): HTMLElementTagNameMap[K] =>
  decorate(document.createElement(tag), attributes, children)

/** An SVG element: `svg("path", { d: "M0 0L10 10" })`. */
export const svg = <K extends keyof SVGElementTagNameMap>(tag: K, attributes?: Attributes, ...children: ReadonlyArray<Child>): SVGElementTagNameMap[K] =>
  decorate(document.createElementNS("http://www.w3.org/2000/svg", tag), attributes, children)

/**
 * Replaces what `region` holds with `children`, keeping the keyboard's place: the element that
 * had the focus (by its `data-key`) has it again, so a live update does not throw a reader out.
 */
export const patch = (region: Element, ...children: ReadonlyArray<Child>): void => {
  const focused = document.activeElement instanceof HTMLElement && region.contains(document.activeElement)
    ? document.activeElement.dataset["key"]
    : undefined
  const fragment = document.createDocumentFragment()
  for (const child of children) append(fragment, child)
  region.replaceChildren(fragment)
  if (focused !== undefined) region.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)?.focus()
}
