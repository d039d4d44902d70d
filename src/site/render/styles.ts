/**
 * The stylesheet of rendered documents, for the layout to include in the page's stylesheet. It uses only
 * the layout's custom properties (`--color-primary`, `--color-text`, `--color-bg`, `--color-muted`,
 * `--color-border`, `--color-code-bg`, `--color-link`, defined by the layout for light and dark) and its own
 * fixed colors (`--hljs-*`, `--doc-*`, on the root for each theme, below); it styles nothing outside the
 * renderer's root `<div class="doc">`.
 *
 * The markup it styles (every class the renderer emits starts with `doc-`, except highlight.js's):
 *
 *   div.doc                                   root of a rendered document
 *   h2|h3|h4.doc-heading#id > … a.doc-anchor  heading-1/2/3, with a visible "#" permalink (aria-label)
 *   p.doc-align-center|doc-align-end          paragraph / heading alignment (start is the default)
 *   ol[start], ul, ul.doc-tasks > li.doc-task > p > label > input[type=checkbox][disabled]
 *   blockquote, hr
 *   aside.doc-hint.doc-hint-{info|warning|danger|success}[role=note][aria-label]
 *   (div|figure).doc-code[.doc-full-width] > figcaption.doc-code-title?
 *     > pre.doc-code-pre.(doc-code-scroll|doc-code-wrap)[.doc-code-numbered][tabindex=0]
 *     > code.hljs.language-x > span.doc-code-line[.doc-code-line-highlighted] (joined by "\n")
 *     > span.hljs-* (highlight.js token classes, e.g. hljs-keyword, hljs-string, hljs-comment)
 *   div.doc-images.doc-images-{center|left|right}[.doc-images-framed][.doc-full-width]
 *     > figure.doc-figure > (picture > source[media=(prefers-color-scheme: dark)] + img.doc-image | img.doc-image) + figcaption?
 *   figure.doc-figure.doc-image-missing > figcaption (the alt text of an image that cannot be shown)
 *   img.doc-inline-image[.doc-inline-image-line] (inline images, maybe in picture.doc-inline-picture)
 *   div.doc-file > p > a.doc-file-link + span.doc-file-meta ; p.doc-file-caption ; div.doc-file-missing
 *   div.doc-table[.doc-table-cards][.doc-full-width][role=region][tabindex=0] > table > thead? + tbody
 *     th|td.doc-align-{center|right}
 *   section.doc-openapi.doc-openapi-operation > h2.doc-heading > span.doc-http-method.doc-http-{get|post|…} + code ; p.doc-openapi-note
 *   section.doc-openapi.doc-openapi-schemas > h2.doc-heading + ul > li > code ; p.doc-openapi-note
 *   span.doc-color-{green|blue|red|orange|yellow|purple|primary|info|success|warning|danger}
 *   span.doc-bg-{same names}                  text and background colors of a color mark
 *   strong, em, s, code, kbd, sup, sub        text marks
 *   div.doc-tabs > details.doc-tab[name=user-content-doc-tabs-N][open?] > summary.doc-tab-title + div.doc-tab-body
 *   details.doc-expandable[open?] > summary + div.doc-expandable-body
 *   ol.doc-stepper > li.doc-step               steps, numbered
 *   div.doc-columns[.doc-full-width] > div.doc-column[.doc-column-{10…100}]
 *   section.doc-updates > article.doc-update > p.doc-update-date > time + span.doc-update-tag
 *   div.doc-embed > a.doc-embed-link > span.doc-embed-host + span.doc-embed-url ; p.doc-embed-caption
 *   a.doc-content-ref > span.doc-content-ref-title
 *   div.doc-math.doc-math-block[role=math] > code ; code.doc-math (inline)
 *   figure.doc-figure.doc-drawing > img.doc-image ; div.doc-prompt ; div.doc-integration
 *   a.doc-button                              inline button
 */
/**
 * The fixed colors of documents (color marks, hints, highlight.js tokens) for the light and the dark
 * theme, as custom properties on the root: the dark ones for `prefers-color-scheme: dark` unless the
 * visitor chose light (`data-theme=light` on the root element), and when they chose dark
 * (`data-theme=dark`), like the layout's theme. Token colors contrast at least 4.5:1 with the code
 * background of their theme (`--color-code-bg`: #f4f6f8 light, #1b2027 dark).
 */
export const LIGHT_TOKENS: Readonly<Record<string, string>> = {
  '--hljs-comment': '#545d68',
  '--hljs-keyword': '#cf222e',
  '--hljs-string': '#0a3069',
  '--hljs-number': '#0550ae',
  '--hljs-title': '#6639ba',
  '--hljs-symbol': '#953800',
  '--hljs-deletion': '#82071e',
  '--doc-green': '#1a7f37',
  '--doc-blue': '#0b61c4',
  '--doc-red': '#c62828',
  '--doc-orange': '#a35200',
  '--doc-yellow': '#7d6300',
  '--doc-purple': '#7b3fbf',
};

export const DARK_TOKENS: Readonly<Record<string, string>> = {
  '--hljs-comment': '#a3acb7',
  '--hljs-keyword': '#ff7b72',
  '--hljs-string': '#a5d6ff',
  '--hljs-number': '#79c0ff',
  '--hljs-title': '#d2a8ff',
  '--hljs-symbol': '#ffa657',
  '--hljs-deletion': '#ffdcd7',
  '--doc-green': '#3fb950',
  '--doc-blue': '#58a6ff',
  '--doc-red': '#f85149',
  '--doc-orange': '#f0883e',
  '--doc-yellow': '#d29922',
  '--doc-purple': '#bc8cff',
};

const declarations = (tokens: Readonly<Record<string, string>>) =>
  Object.entries(tokens)
    .map(([name, value]) => `${name}: ${value};`)
    .join(' ');

export const RENDER_CSS = `
.doc { color: var(--color-text); line-height: 1.65; overflow-wrap: break-word; }
.doc :is(p, ul, ol, blockquote, figure, pre) { margin-block: 0 1rem; }
.doc a { color: var(--color-link, var(--color-primary)); text-underline-offset: 0.15em; }
.doc a:focus-visible, .doc [tabindex]:focus-visible { outline: 2px solid var(--color-primary); outline-offset: 2px; border-radius: 2px; }
.doc-heading { position: relative; line-height: 1.3; margin: 2rem 0 0.75rem; scroll-margin-top: 5rem; }
.doc h2.doc-heading { font-size: 1.6rem; }
.doc h3.doc-heading { font-size: 1.3rem; }
.doc h4.doc-heading { font-size: 1.1rem; }
.doc-anchor { margin-left: 0.35em; color: var(--color-muted); text-decoration: none; opacity: 0.6; }
.doc-heading:hover .doc-anchor, .doc-anchor:focus-visible { opacity: 1; color: var(--color-primary); }
.doc-align-center { text-align: center; }
.doc-align-end { text-align: end; }
.doc-align-right { text-align: right; }
.doc ul, .doc ol { padding-left: 1.5rem; }
.doc li > p { margin: 0.25rem 0; }
.doc-tasks { list-style: none; padding-left: 0.25rem; }
.doc-task input { margin-right: 0.4rem; accent-color: var(--color-primary); }
.doc blockquote { margin-left: 0; padding: 0.25rem 1rem; border-left: 4px solid var(--color-border); color: var(--color-text); }
.doc hr { border: 0; border-top: 1px solid var(--color-border); margin: 2rem 0; }
.doc code, .doc kbd { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
.doc :not(pre) > code { background: var(--color-code-bg); padding: 0.1em 0.35em; border-radius: 4px; }
.doc kbd { border: 1px solid var(--color-border); border-bottom-width: 2px; border-radius: 4px; padding: 0.05em 0.35em; background: var(--color-bg); }
.doc-hint { border: 1px solid var(--color-border); border-left: 4px solid var(--hint-color, var(--color-primary)); border-radius: 6px; padding: 0.75rem 1rem; background: color-mix(in srgb, var(--hint-color, var(--color-primary)) 8%, var(--color-bg)); }
.doc-hint::before { content: attr(aria-label); display: block; font-weight: 600; color: var(--color-text); margin-bottom: 0.25rem; }
.doc-hint > :last-child { margin-bottom: 0; }
.doc-hint-info { --hint-color: var(--color-primary); }
.doc-hint-success { --hint-color: var(--doc-green); }
.doc-hint-warning { --hint-color: var(--doc-orange); }
.doc-hint-danger { --hint-color: var(--doc-red); }
.doc-code { margin: 0 0 1rem; border: 1px solid var(--color-border); border-radius: 6px; background: var(--color-code-bg); overflow: hidden; }
.doc-code-title { padding: 0.4rem 1rem; border-bottom: 1px solid var(--color-border); font-size: 0.85rem; color: var(--color-text); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.doc-code-pre { margin: 0; padding: 0.75rem 0; overflow-x: auto; font-size: 0.875rem; line-height: 1.55; counter-reset: doc-line; }
.doc-code-pre > code { display: block; min-width: max-content; background: none; padding: 0; }
.doc-code-wrap { white-space: pre-wrap; overflow-wrap: anywhere; }
.doc-code-wrap > code { min-width: 0; }
.doc-code-line { display: inline-block; min-width: 100%; box-sizing: border-box; padding: 0 1rem; }
.doc-code-line-highlighted { background: color-mix(in srgb, var(--color-primary) 14%, transparent); box-shadow: inset 3px 0 0 var(--color-primary); }
.doc-code-numbered .doc-code-line::before { counter-increment: doc-line; content: counter(doc-line); display: inline-block; width: 2.5em; margin-right: 1rem; text-align: right; color: var(--color-muted); user-select: none; }
.doc-code-wrap.doc-code-numbered .doc-code-line { padding-left: 4.5rem; text-indent: -3.5rem; }
.doc-full-width { max-width: none; }
.doc-images { display: flex; flex-wrap: wrap; gap: 1rem; justify-content: center; }
.doc-images-left { justify-content: flex-start; }
.doc-images-right { justify-content: flex-end; }
.doc-figure { margin: 0; max-width: 100%; }
.doc-figure img, .doc-image { max-width: 100%; height: auto; }
.doc-images-framed .doc-figure { padding: 0.5rem; border: 1px solid var(--color-border); border-radius: 8px; }
.doc-figure figcaption { margin-top: 0.4rem; font-size: 0.875rem; color: var(--color-muted); text-align: center; }
.doc-image-missing figcaption { font-style: italic; }
.doc-inline-image { max-height: 1.5em; vertical-align: middle; }
.doc-inline-image:not(.doc-inline-image-line) { max-height: none; max-width: 100%; height: auto; }
.doc-file { border: 1px solid var(--color-border); border-radius: 6px; padding: 0.6rem 1rem; }
.doc-file p { margin: 0; }
.doc-file-meta, .doc-file-caption { color: var(--color-muted); font-size: 0.875rem; }
.doc-table { overflow-x: auto; margin-bottom: 1rem; }
.doc-table table { border-collapse: collapse; width: 100%; font-size: 0.95rem; }
.doc-table th, .doc-table td { border: 1px solid var(--color-border); padding: 0.45rem 0.75rem; text-align: left; vertical-align: top; }
.doc-table th { background: var(--color-code-bg); font-weight: 600; }
.doc-table td > :last-child { margin-bottom: 0; }
.doc-table .doc-align-center { text-align: center; }
.doc-table .doc-align-right { text-align: right; }
.doc-openapi { border: 1px solid var(--color-border); border-radius: 6px; padding: 0 1rem 0.5rem; margin-bottom: 1rem; }
.doc-openapi h2.doc-heading { font-size: 1.15rem; margin-top: 1rem; }
.doc-http-method { display: inline-block; padding: 0.1em 0.45em; border-radius: 4px; font-size: 0.8em; font-weight: 700; background: var(--color-code-bg); color: var(--color-text); border: 1px solid var(--color-border); }
.doc-openapi-note { color: var(--color-muted); font-size: 0.9rem; }
.doc-color-primary, .doc-color-info { color: var(--color-link, var(--color-primary)); }
.doc-color-green, .doc-color-success { color: var(--doc-green); }
.doc-color-blue { color: var(--doc-blue); }
.doc-color-red, .doc-color-danger { color: var(--doc-red); }
.doc-color-orange, .doc-color-warning { color: var(--doc-orange); }
.doc-color-yellow { color: var(--doc-yellow); }
.doc-color-purple { color: var(--doc-purple); }
.doc [class*="doc-bg-"] { padding: 0 0.15em; border-radius: 3px; color: var(--color-text); }
.doc-bg-primary, .doc-bg-info { background: color-mix(in srgb, var(--color-primary) 18%, transparent); }
.doc-bg-green, .doc-bg-success { background: color-mix(in srgb, #2da44e 20%, transparent); }
.doc-bg-blue { background: color-mix(in srgb, #2f81f7 20%, transparent); }
.doc-bg-red, .doc-bg-danger { background: color-mix(in srgb, #e5534b 20%, transparent); }
.doc-bg-orange, .doc-bg-warning { background: color-mix(in srgb, #f0883e 22%, transparent); }
.doc-bg-yellow { background: color-mix(in srgb, #d4a72c 25%, transparent); }
.doc-bg-purple { background: color-mix(in srgb, #a371f7 20%, transparent); }
.doc-tabs { border: 1px solid var(--color-border); border-radius: 6px; margin-bottom: 1rem; }
.doc-tab + .doc-tab { border-top: 1px solid var(--color-border); }
.doc-tab-title { cursor: pointer; padding: 0.5rem 1rem; font-weight: 600; }
.doc-tab[open] > .doc-tab-title { color: var(--color-primary); border-bottom: 1px solid var(--color-border); }
.doc-tab-body, .doc-expandable-body { padding: 0.75rem 1rem 0.25rem; }
.doc-expandable { border: 1px solid var(--color-border); border-radius: 6px; margin-bottom: 1rem; }
.doc-expandable > summary { cursor: pointer; padding: 0.5rem 1rem; font-weight: 600; }
.doc-stepper { list-style: none; counter-reset: doc-step; padding-left: 0; }
.doc-step { counter-increment: doc-step; position: relative; padding-left: 2.5rem; margin-bottom: 1rem; border-left: 2px solid var(--color-border); }
.doc-step::before { content: counter(doc-step); position: absolute; left: -0.85rem; top: 0; width: 1.6rem; height: 1.6rem; border-radius: 50%; background: var(--color-primary); color: var(--color-bg); text-align: center; line-height: 1.6rem; font-size: 0.85rem; }
.doc-columns { display: flex; flex-wrap: wrap; gap: 1.5rem; margin-bottom: 1rem; }
.doc-column { flex: 1 1 14rem; min-width: 0; }
.doc-column-10 { flex-basis: 10%; } .doc-column-20 { flex-basis: 20%; } .doc-column-30 { flex-basis: 30%; } .doc-column-40 { flex-basis: 40%; }
.doc-column-50 { flex-basis: 45%; } .doc-column-60 { flex-basis: 60%; } .doc-column-70 { flex-basis: 70%; } .doc-column-80 { flex-basis: 80%; } .doc-column-90 { flex-basis: 90%; }
.doc-update { border-left: 3px solid var(--color-border); padding-left: 1rem; margin-bottom: 1.5rem; }
.doc-update-date { color: var(--color-muted); font-size: 0.9rem; }
.doc-update-tag { margin-left: 0.5rem; padding: 0 0.4em; border: 1px solid var(--color-border); border-radius: 999px; font-size: 0.8rem; }
.doc-embed, .doc-content-ref { display: block; border: 1px solid var(--color-border); border-radius: 6px; padding: 0.6rem 1rem; margin-bottom: 1rem; text-decoration: none; }
.doc-embed-host, .doc-content-ref-title { font-weight: 600; }
.doc-embed-url { color: var(--color-muted); font-size: 0.875rem; overflow-wrap: anywhere; }
.doc-embed-caption { margin: 0.4rem 0 0; color: var(--color-muted); font-size: 0.875rem; }
.doc-math-block { overflow-x: auto; margin-bottom: 1rem; text-align: center; }
.doc-prompt { border: 1px dashed var(--color-border); border-radius: 6px; padding: 0.5rem 1rem 0; margin-bottom: 1rem; }
.doc-button { display: inline-block; padding: 0.3em 0.9em; border-radius: 6px; background: var(--color-primary); color: var(--color-bg) !important; text-decoration: none; }
.doc .hljs-comment, .doc .hljs-quote { color: var(--hljs-comment); font-style: italic; }
.doc .hljs-keyword, .doc .hljs-selector-tag, .doc .hljs-built_in, .doc .hljs-type, .doc .hljs-doctag { color: var(--hljs-keyword); }
.doc .hljs-string, .doc .hljs-regexp, .doc .hljs-addition, .doc .hljs-attribute, .doc .hljs-meta .hljs-string { color: var(--hljs-string); }
.doc .hljs-number, .doc .hljs-literal, .doc .hljs-variable, .doc .hljs-template-variable, .doc .hljs-attr, .doc .hljs-selector-attr, .doc .hljs-selector-class, .doc .hljs-selector-id { color: var(--hljs-number); }
.doc .hljs-title, .doc .hljs-section, .doc .hljs-name, .doc .hljs-selector-pseudo { color: var(--hljs-title); }
.doc .hljs-symbol, .doc .hljs-bullet, .doc .hljs-link, .doc .hljs-meta, .doc .hljs-params { color: var(--hljs-symbol); }
.doc .hljs-deletion { color: var(--hljs-deletion); }
.doc .hljs-emphasis { font-style: italic; }
.doc .hljs-strong { font-weight: 700; }
:root { ${declarations(LIGHT_TOKENS)} }
@media (prefers-color-scheme: dark) { :root:not([data-theme=light]) { ${declarations(DARK_TOKENS)} } }
:root[data-theme=dark] { ${declarations(DARK_TOKENS)} }
`.trim();
