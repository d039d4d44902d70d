import type { SpaceTemplateDefinition } from '../types';

/**
 * API reference: an introduction, the guides every API needs (authentication, errors, pagination)
 * and a reference computed from the OpenAPI specification given in `params.contentRefs`.
 */

const introduction = `---
description: What the API does, its base URL, and how to make a first request.
---

# Introduction

The **Acme API** lets you automate everything you can do in the app. It is organized around
resources, accepts and returns JSON, and uses standard HTTP methods and status codes.

## Base URL

~~~
https://api.example.com/v1
~~~

## Your first request

~~~bash
curl https://api.example.com/v1/projects \\
  -H "Authorization: Bearer $ACME_TOKEN"
~~~

A successful request answers \`200 OK\` with a JSON body.

## Next steps

- Get a token and send it: [Authentication](page:authentication).
- Know what can go wrong: [Errors](page:errors).
- Read long lists page by page: [Pagination](page:pagination).
- Browse every operation: [Reference](page:reference).
`;

const guides = `---
description: What applies to every operation of the API.
---

# Guides

These pages describe what every operation has in common. Read them once before using the
[Reference](page:reference).

- [Authentication](page:authentication)
- [Errors](page:errors)
- [Pagination](page:pagination)
`;

const authentication = `---
description: Create a token and send it with every request.
---

# Authentication

Every request needs a token, sent in the \`Authorization\` header:

~~~http
GET /v1/projects HTTP/1.1
Host: api.example.com
Authorization: Bearer <token>
~~~

## Create a token

1. Open **Settings → API tokens** in the app.
2. Choose **New token**, give it a name and the scopes it needs.
3. Copy the token: it is shown only once.

{% hint style="danger" %}
Treat tokens like passwords. Never commit them to source control or put them in client-side code;
revoke a token as soon as you suspect it leaked.
{% endhint %}

## Scopes

| Scope | Allows |
| --- | --- |
| \`read\` | Reading every resource the token's owner can see |
| \`write\` | Creating, changing and deleting them |
| \`admin\` | Managing members, billing and settings |

A request without a token, or with an unknown or revoked one, answers \`401 Unauthorized\`.
`;

const errors = `---
description: Status codes, the error body, and what to do about each error.
---

# Errors

The API answers with conventional HTTP status codes: \`2xx\` for success, \`4xx\` for a problem with
the request, \`5xx\` for a problem on our side. Every error has the same body:

~~~json
{
  "error": {
    "code": 404,
    "message": "Project not found"
  }
}
~~~

| Status | Meaning | What to do |
| --- | --- | --- |
| 400 | The request is invalid; the message names the field | Fix the request |
| 401 | No token, or an invalid one | Send a valid token |
| 403 | The token cannot do this | Use a token with the right role or scope |
| 404 | The resource does not exist or is not visible to you | Check the id |
| 409 | The request conflicts with the current state | Read the resource again, then retry |
| 429 | Too many requests | Wait for the time given in \`Retry-After\` |
| 5xx | Something failed on our side | Retry with exponential backoff |
`;

const pagination = `---
description: Read long lists page by page with a cursor.
---

# Pagination

Operations that list resources answer one page at a time:

~~~json
{
  "items": [],
  "count": 1250,
  "next": { "page": "eyJhZnRlciI6..." }
}
~~~

- \`limit\` sets the page size (default 100, at most 1000).
- \`next.page\` is an opaque cursor: pass it as the \`page\` query parameter to get the next page.
  When there is no \`next\`, you have read the last page.
- \`count\` is the total number of items that match.

~~~bash
curl "https://api.example.com/v1/projects?limit=50&page=eyJhZnRlciI6..." \\
  -H "Authorization: Bearer $ACME_TOKEN"
~~~
`;

/**
 * A computed page (`openapi` below): generated, when read, from the specification given in
 * `params.contentRefs` (one page per tag with its operations, and a Models page). Only its title and
 * description come from here.
 */
const reference = `---
description: Every operation of the API, generated from its OpenAPI specification.
---

# Reference
`;

export const apiReference: SpaceTemplateDefinition = {
  id: 'api-reference',
  title: 'API reference',
  subtitle: 'An introduction, authentication, errors and pagination guides, and a reference from your OpenAPI specification',
  emoji: '1f50c',
  requires: ['openapi'],
  pages: [
    { key: 'introduction', emoji: '1f44b', markdown: introduction },
    {
      key: 'guides',
      emoji: '1f4d6',
      markdown: guides,
      pages: [
        { key: 'authentication', emoji: '1f511', markdown: authentication },
        { key: 'errors', emoji: '26a0', markdown: errors },
        { key: 'pagination', emoji: '1f4c4', markdown: pagination },
      ],
    },
    { key: 'reference', emoji: '1f4da', markdown: reference, openapi: { models: true } },
  ],
};
