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
 * had the focus (by its `data-key`) has it again, so a live update does not throw a reader out;
 * gone or disabled, the region itself has it.
 */
export const patch = (region: HTMLElement, ...children: ReadonlyArray<Child>): void => {
  const had = document.activeElement instanceof HTMLElement && region.contains(document.activeElement)
  const focused = had ? (document.activeElement as HTMLElement).dataset["key"] : undefined
  const fragment = document.createDocumentFragment()
  for (const child of children) append(fragment, child)
  region.replaceChildren(fragment)
  if (!had) return
  const again = focused === undefined ? null : region.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)
  if (again !== null && !(again as HTMLButtonElement).disabled) {
    again.focus()
    return
  }
  if (!region.hasAttribute("tabindex")) region.setAttribute("tabindex", "-1")
  region.focus({ preventScroll: true })
}

const drawn = new WeakMap<Element, string>()

/**
 * {@link patch} with what `build` makes, unless `region` already shows what `signature` (the
 * data and state it is drawn from, as text) describes: a live update that brings nothing new
 * leaves the region as it is (a selection, a reader's place, an open detail stay).
 */
export const patchIfChanged = (region: HTMLElement, signature: string, build: () => ReadonlyArray<Child>): void => {
  if (drawn.get(region) === signature) return
  drawn.set(region, signature)
  patch(region, ...build())
}
