import type { SpaceTemplateDefinition } from '../types';

/** Changelog: the latest changes first, one page per release, and the release policy behind them. */

const history = `---
description: New features, improvements and fixes, most recent first.
---

# Changelog

Every release of **Acme**, most recent first. Each release has its own page with the details; this
page keeps the highlights.

| Version | Highlights |
| --- | --- |
| [1.1.0](page:v1-1-0) | Bulk export, faster search, two fixes |
| [1.0.0](page:v1-0-0) | First stable release |

{% hint style="info" %}
To add a release, duplicate the latest release page, rename it after the new version, and add a line
at the top of the table above.
{% endhint %}

Breaking changes are announced in advance: see the [release policy](page:release-policy).
`;

const v110 = `---
description: Bulk export, faster search, and fixes.
---

# 1.1.0

## New

- **Bulk export**: export a whole project as CSV or JSON from **Settings → Export**.

## Improved

- Search answers up to three times faster on large projects.

## Fixed

- Dates in exports now use the time zone of the project instead of UTC.
- Renaming a source no longer resets its schedule.

## Upgrading

No action is needed: the release is backwards compatible with 1.0.
`;

const v100 = `---
description: The first stable release.
---

# 1.0.0

The first stable release. From this version on, the API and the file formats follow the
[release policy](page:release-policy): nothing breaks before a new major version.

## New

- Projects, sources and roles.
- The command-line tool for macOS, Linux and Windows.
- The REST API, version 1.
`;

const releasePolicy = `---
description: How versions are numbered, how often we release, and how changes are announced.
---

# Release policy

## Versions

Versions follow [semantic versioning](https://semver.org): \`MAJOR.MINOR.PATCH\`.

| Part | Changes when | Example |
| --- | --- | --- |
| Major | Something that worked stops working | 1.4.2 → 2.0.0 |
| Minor | A feature is added, nothing breaks | 1.4.2 → 1.5.0 |
| Patch | A bug is fixed | 1.4.2 → 1.4.3 |

## Schedule

A minor release every month, patches as needed. Security fixes are released as soon as they are
ready, for the current and the previous minor version.

## Deprecations

A feature is deprecated at least one minor release before it is removed. Deprecations are listed in
the release notes under **Deprecated**, with the replacement to use.
`;

export const changelog: SpaceTemplateDefinition = {
  id: 'changelog',
  title: 'Changelog',
  subtitle: 'Release notes, one page per version, and the release policy behind them',
  emoji: '1f4e3',
  pages: [
    {
      key: 'changelog',
      emoji: '1f4e3',
      markdown: history,
      pages: [
        { key: 'v1-1-0', markdown: v110 },
        { key: 'v1-0-0', markdown: v100 },
      ],
    },
    { key: 'release-policy', emoji: '1f4c5', markdown: releasePolicy },
  ],
};
