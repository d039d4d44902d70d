import { sha256Hex } from '../lib/ids';
import { RENDER_CSS } from './render/styles';

/**
 * The published site's static assets: one stylesheet (the layout's rules and the renderer's block
 * styles, all in terms of the theme's CSS custom properties) and one small script (the theme toggle).
 * and a built-in favicon. All are the same for every site, served from `/_site/<hash>.css|.js|.svg`: the hash names the content,
 * so they are cached for a year and a new deployment with other content gets other URLs.
 */

const LAYOUT_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--color-bg);color:var(--color-text);font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
a{color:var(--color-link)}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--color-link);outline-offset:2px;border-radius:2px}
.skip{position:absolute;left:-9999px;top:0;background:var(--color-bg);padding:.5rem 1rem;z-index:10}
.skip:focus{left:1rem}
.announcement{padding:.5rem 1rem;text-align:center;background:var(--color-primary);color:var(--color-on-primary)}
.announcement a{color:inherit;font-weight:600}
.site-header{border-bottom:1px solid var(--color-border);background:var(--color-bg)}
.header-row{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem 1.25rem;padding:.6rem 1.25rem;max-width:90rem;margin:0 auto}
.brand{display:flex;align-items:center;gap:.5rem;font-weight:700;font-size:1.1rem;color:var(--color-text);text-decoration:none}
.brand img{height:2rem;width:auto}
.header-links,.sections{display:flex;flex-wrap:wrap;gap:.25rem .9rem;list-style:none;margin:0;padding:0;align-items:center}
.header-links a,.sections a{text-decoration:none}
.header-links .button-primary{background:var(--color-primary);color:var(--color-on-primary);padding:.3rem .8rem;border-radius:var(--radius)}
.header-links .button-secondary{border:1px solid var(--color-border);padding:.3rem .8rem;border-radius:var(--radius)}
.sections{padding:0 1.25rem .4rem;max-width:90rem;margin:0 auto}
.sections a{display:inline-block;padding:.35rem 0;color:var(--color-muted);border-bottom:2px solid transparent}
.sections a[aria-current]{color:var(--color-text);border-bottom-color:var(--color-primary);font-weight:600}
.menu{position:relative}
.menu>summary{cursor:pointer;color:var(--color-muted);list-style:none;padding:.35rem 0}
.menu>summary::after{content:" \\25BE"}
.menu>summary::-webkit-details-marker{display:none}
.menu[open]>ul{position:absolute;z-index:5;min-width:12rem;list-style:none;margin:.25rem 0 0;padding:.4rem;background:var(--color-bg);border:1px solid var(--color-border);border-radius:var(--radius);box-shadow:0 4px 16px rgba(0,0,0,.12)}
.menu ul li a{display:block;padding:.3rem .5rem}
.menu ul ul{position:static;border:0;box-shadow:none;padding-left:.75rem}
.search{margin-left:auto;display:flex;gap:.25rem}
.search input{font:inherit;padding:.3rem .6rem;border:1px solid var(--color-border);border-radius:var(--radius);background:var(--color-bg);color:var(--color-text);min-width:12rem}
button,.search button{font:inherit;padding:.3rem .7rem;border:1px solid var(--color-border);border-radius:var(--radius);background:var(--color-code-bg);color:var(--color-text);cursor:pointer}
.layout{display:grid;grid-template-columns:16rem minmax(0,1fr) 14rem;gap:2rem;max-width:90rem;margin:0 auto;padding:1.5rem 1.25rem}
.sidebar ul{list-style:none;margin:0;padding:0}
.sidebar ul ul{padding-left:.9rem;border-left:1px solid var(--color-border);margin-left:.3rem}
.sidebar a{display:block;padding:.2rem .4rem;color:var(--color-text);text-decoration:none;border-radius:var(--radius)}
.sidebar a:hover{text-decoration:underline}
.sidebar a[aria-current=page]{background:var(--color-code-bg);color:var(--color-link);font-weight:600}
.sidebar .group-title{display:block;margin:1rem 0 .3rem;padding:0 .4rem;font-size:.8rem;font-weight:600;text-transform:uppercase;letter-spacing:.03em;color:var(--color-muted,inherit)}
.sidebar ul ul.group{padding-left:0;border-left:0;margin-left:0}
.variants{margin-bottom:1rem}
.variants>summary{color:var(--color-text)}
main{min-width:0}
main h1{font-size:2rem;line-height:1.25;margin:0 0 .5rem}
.description{color:var(--color-muted);font-size:1.1rem;margin:0 0 1.5rem}
.breadcrumbs{font-size:.9rem;color:var(--color-muted);margin-bottom:.5rem}
.breadcrumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:.4rem;margin:0;padding:0}
.breadcrumbs li+li::before{content:"/";margin-right:.4rem}
.pagination{display:flex;justify-content:space-between;gap:1rem;margin-top:3rem;padding-top:1rem;border-top:1px solid var(--color-border)}
.pagination a{display:block;padding:.6rem .9rem;border:1px solid var(--color-border);border-radius:var(--radius);text-decoration:none;max-width:48%}
.pagination .next{margin-left:auto;text-align:right}
.pagination small{display:block;color:var(--color-muted)}
.outline{font-size:.9rem}
.outline h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:var(--color-muted);margin:0 0 .5rem}
.outline ul{list-style:none;margin:0;padding:0}
.outline li{margin:.2rem 0}
.outline .level-3{padding-left:.9rem}
.outline a{color:var(--color-muted);text-decoration:none}
.outline a:hover{color:var(--color-link)}
.sticky{position:sticky;top:1rem}
.site-footer{border-top:1px solid var(--color-border);padding:2rem 1.25rem;color:var(--color-muted)}
.footer-groups{display:flex;flex-wrap:wrap;gap:2rem;max-width:90rem;margin:0 auto}
.footer-groups h2{font-size:.95rem;color:var(--color-text);margin:0 0 .5rem}
.footer-groups ul{list-style:none;margin:0;padding:0}
.copyright{max-width:90rem;margin:1rem auto 0}
.results{list-style:none;padding:0}
.results>li{margin:0 0 1.25rem}
.results h2{font-size:1.1rem;margin:0}
.results ul{list-style:none;padding-left:.9rem;margin:.3rem 0}
.results p{margin:.1rem 0;color:var(--color-muted)}
.not-found{max-width:40rem;margin:4rem auto;padding:0 1.25rem;text-align:center}
.cookie-consent{position:fixed;left:1rem;right:1rem;bottom:1rem;z-index:20;max-width:32rem;padding:.8rem 1rem;background:var(--color-bg);border:1px solid var(--color-border);border-radius:var(--radius);box-shadow:0 4px 16px rgba(0,0,0,.12)}
.cookie-consent[hidden]{display:none}
.cookie-consent p{margin:0 0 .5rem}
.page-feedback{margin-top:2.5rem;padding:1rem;border:1px solid var(--color-border);border-radius:var(--radius)}
.page-feedback[hidden],.page-feedback form[hidden]{display:none}
.page-feedback h2{font-size:1rem;margin:0 0 .5rem}
.page-feedback button[aria-pressed=true]{background:var(--color-primary);color:var(--color-on-primary)}
.page-feedback form{display:grid;gap:.4rem;margin-top:.75rem}
.page-feedback textarea{font:inherit;padding:.4rem;border:1px solid var(--color-border);border-radius:var(--radius);background:var(--color-bg);color:var(--color-text)}
.feedback-status{margin:.5rem 0 0;color:var(--color-muted)}
@media (max-width:1100px){.layout{grid-template-columns:14rem minmax(0,1fr)}.outline{display:none}}
@media (max-width:760px){.layout{grid-template-columns:minmax(0,1fr)}.sidebar{border-bottom:1px solid var(--color-border);padding-bottom:1rem}.search{margin-left:0;width:100%}.search input{flex:1;min-width:0}}
@media (prefers-reduced-motion:reduce){*{scroll-behavior:auto!important}}
`;

/**
 * The theme toggle: the visitor's choice (kept in localStorage) on the root element's `data-theme`. The
 * button says which theme is showing ("Dark mode" / "Light mode") and is pressed (aria-pressed) while
 * the dark one is; it follows the system's preference while the visitor has not chosen.
 * The cookie banner (pages with integrations' scripts that use cookies, src/site/layout.ts): shown until the
 * visitor chooses (kept in localStorage); those scripts load once they accept, never before. The choice is also
 * the cookie `__gitbook_cookie_granted` (`yes`/`no`), which GitBook's own integrations' scripts read (Google
 * Analytics, Segment's `site_view` handler) before they track.
 */
/*
 * Insights (src/site/insights.ts, services/insights): the page view of a page, the search of the search page (with
 * its number of results) and the page feedback (`feedback.enabled`) are sent to the site's `~gitbook/insights` in
 * GitBook's event shapes. The session is a random id kept for the tab (sessionStorage); the visitor is that session,
 * unless the site sets its tracking cookie (`insights.trackingCookie`, shown by the `data-tracking` of the page) and
 * the visitor accepted cookies in the banner: then a random `site_visitor` cookie scoped to the site.
 */
const SCRIPT = `(function(){var d=document.documentElement,k="site-theme";try{var s=localStorage.getItem(k);if(s==="light"||s==="dark")d.setAttribute("data-theme",s)}catch(e){}
var m=window.matchMedia?matchMedia("(prefers-color-scheme: dark)"):null;
function dark(){var t=d.getAttribute("data-theme");return t?t==="dark":!!(m&&m.matches)}
function show(b){var on=dark();b.setAttribute("aria-pressed",String(on));b.textContent=on?"Dark mode":"Light mode";b.title=on?"Switch to light mode":"Switch to dark mode"}
document.addEventListener("DOMContentLoaded",function(){var b=document.getElementById("theme-toggle");if(!b)return;show(b);b.hidden=false;
if(m&&m.addEventListener)m.addEventListener("change",function(){show(b)});
b.addEventListener("click",function(){var n=dark()?"light":"dark";d.setAttribute("data-theme",n);show(b);try{localStorage.setItem(k,n)}catch(e){}})});
document.addEventListener("DOMContentLoaded",function(){var c=document.getElementById("cookie-consent");if(!c)return;var q="site-cookies",v=null;try{v=localStorage.getItem(q)}catch(e){}
function load(){(c.getAttribute("data-scripts")||"").split(" ").forEach(function(u){if(!u)return;var s=document.createElement("script");s.async=true;s.src=u;document.head.appendChild(s)})}
function tell(a){document.cookie="__gitbook_cookie_granted="+a+"; path=/; max-age=31536000; SameSite=Lax"}
if(v==="yes"){tell(v);load();return}if(v==="no"){tell(v);return}c.hidden=false;
c.addEventListener("click",function(e){var b=e.target.closest&&e.target.closest("[data-consent]");if(!b)return;var a=b.getAttribute("data-consent");try{localStorage.setItem(q,a)}catch(x){}tell(a);c.hidden=true;if(a==="yes")load()})});
document.addEventListener("DOMContentLoaded",function(){var m=document.getElementById("site-insights");if(!m||!window.fetch)return;
function a(n){return m.getAttribute("data-"+n)}
function rid(){return window.crypto&&crypto.randomUUID?crypto.randomUUID():(Math.random().toString(36).slice(2)+Date.now().toString(36))}
var ep=a("endpoint"),sk="site-session:"+ep,s;try{s=sessionStorage.getItem(sk);if(!s){s=rid();sessionStorage.setItem(sk,s)}}catch(e){s=rid()}
function granted(){try{return localStorage.getItem("site-cookies")==="yes"}catch(e){return false}}
function visitor(){if(a("tracking")!=="1"||!granted())return s;var f=document.cookie.match(/(?:^|; )site_visitor=([A-Za-z0-9-]{8,64})/);if(f)return f[1];var v=rid();document.cookie="site_visitor="+v+"; path="+a("cookie-path")+"; max-age=31536000; SameSite=Lax"+(location.protocol==="https:"?"; Secure":"");return v}
function ev(t,x){var r=document.referrer;var o={type:t,session:{visitorId:visitor(),sessionId:s,cookies:{},userAgent:navigator.userAgent.slice(0,1024),language:navigator.language||null,referrer:r&&r.length<=2048?r:null},location:{url:location.href.slice(0,2048),displayContext:"site",siteSection:a("site-section"),siteSpace:a("site-space"),siteShareKey:null,space:a("space"),revision:a("revision"),page:a("page")},timestamp:new Date().toISOString()};for(var k in x)o[k]=x[k];return o}
function send(l){return fetch(ep,{method:"POST",credentials:"same-origin",keepalive:true,headers:{"Content-Type":"application/json"},body:JSON.stringify({events:l})})}
if(a("page"))send([ev("page_view",{})]).catch(function(){});
var sq=a("search-query");if(sq)send([ev("search_type_query",{query:sq,resultsCount:Number(a("search-results"))})]).catch(function(){});
var fb=document.getElementById("page-feedback");if(!fb)return;fb.hidden=false;var rating=null,form=fb.querySelector("form"),st=fb.querySelector(".feedback-status");
function done(p){p.then(function(r){st.textContent=r.ok?"Thank you for your feedback.":"Your feedback could not be sent."},function(){st.textContent="Your feedback could not be sent."})}
fb.addEventListener("click",function(e){var b=e.target.closest&&e.target.closest("[data-rating]");if(!b)return;rating=b.getAttribute("data-rating");var all=fb.querySelectorAll("[data-rating]");for(var i=0;i<all.length;i++)all[i].setAttribute("aria-pressed",String(all[i]===b));form.hidden=false;done(send([ev("page_post_feedback",{feedback:{rating:rating}})]))});
form.addEventListener("submit",function(e){e.preventDefault();var c=form.querySelector("textarea").value.trim().slice(0,512);if(!rating||!c)return;form.hidden=true;done(send([ev("page_post_feedback_comment",{feedback:{rating:rating,comment:c}})]))})})})();
`;

/** The built-in favicon (sites without an icon or emoji of their own, the 404 page): no page makes a browser ask for /favicon.ico. */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#346ddb"/><path d="M9 8h10l4 4v12H9z" fill="#fff"/><path d="M12 15h8M12 19h8" stroke="#346ddb" stroke-width="2"/></svg>
`;

export interface Asset {
  body: string;
  type: string;
  path: string;
}

export interface SiteAssets {
  css: Asset;
  js: Asset;
  icon: Asset;
}

let built: SiteAssets | undefined;

/**
 * The assets with their content-addressed paths (hashed once per isolate). The value is kept, not the promise of it:
 * concurrent first requests each hash for themselves, so that none goes on from a promise another request created
 * (app.ts `serveWithGroup` says what that did).
 */
export async function siteAssets(): Promise<SiteAssets> {
  if (built) return built;
  const css = `${LAYOUT_CSS}\n${RENDER_CSS}`;
  const [cssHash, jsHash, iconHash] = await Promise.all([sha256Hex(css), sha256Hex(SCRIPT), sha256Hex(ICON)]);
  built ??= {
    css: { body: css, type: 'text/css; charset=utf-8', path: `/_site/${cssHash.slice(0, 16)}.css` },
    js: { body: SCRIPT, type: 'text/javascript; charset=utf-8', path: `/_site/${jsHash.slice(0, 16)}.js` },
    icon: { body: ICON, type: 'image/svg+xml', path: `/_site/${iconHash.slice(0, 16)}.svg` },
  };
  return built;
}

/** The `sha256-...` source of an inline element's text, for a Content-Security-Policy. */
export async function cspHash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  let binary = '';
  for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
  return `'sha256-${btoa(binary)}'`;
}
