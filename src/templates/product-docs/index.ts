import type { SpaceTemplateDefinition } from '../types';

/** Product documentation: an overview, a getting-started path, the concepts, and troubleshooting. */

const overview = `---
description: What the product does, who it is for, and where to start.
---

# Overview

Welcome to the documentation of **Acme**. Replace this paragraph with two or three sentences that say
what your product does, for whom, and the problem it solves.

## What you can do with it

- **Do the main thing**: describe the core job your product does in one line.
- **Connect your tools**: list the integrations people ask about most.
- **Work as a team**: roles, sharing and review, if your product has them.

## Where to start

| If you want to… | Read |
| --- | --- |
| Try it in five minutes | [Quickstart](page:quickstart) |
| Install it on your own machine or server | [Installation](page:installation) |
| Understand how it works | [Core concepts](page:concepts) |
| Fix something that does not work | [Troubleshooting](page:troubleshooting) |

{% hint style="info" %}
Keep this page short: it is the first page most readers open. Link to the details rather than
repeating them here.
{% endhint %}
`;

const gettingStarted = `---
description: Everything you need to go from nothing to a working setup.
---

# Getting started

This section takes you from a new account to a working setup. Follow the pages in order the first
time; come back to each one when you need it.

1. [Quickstart](page:quickstart): the shortest path to a first result.
2. [Installation](page:installation): the supported ways to install, and their requirements.

## Before you begin

You need:

- an account (sign up at \`https://example.com/signup\`);
- an API key or access token, if you plan to automate anything;
- about ten minutes.
`;

const quickstart = `---
description: Get a first result in five minutes.
---

# Quickstart

This guide gets you to a first result as quickly as possible. Each step says what you should see
when it worked.

## 1. Create a project

Sign in, choose **New project**, and give it a name. You land on the project's dashboard.

## 2. Connect your data

Choose **Add source** and follow the prompts. When the connection works, the source shows a green
status.

## 3. See the result

Open the **Overview** tab: the first results appear within a minute.

~~~bash
# Or do the same from the command line
acme login
acme projects create "My first project"
acme sources add --project "My first project" --type demo
~~~

## Next steps

- Install the command-line tool for your system: [Installation](page:installation).
- Learn the vocabulary used in the rest of the docs: [Core concepts](page:concepts).
`;

const installation = `---
description: Supported platforms, requirements and install commands.
---

# Installation

## Requirements

| Component | Minimum | Recommended |
| --- | --- | --- |
| Operating system | Linux, macOS 13, Windows 11 | The latest release |
| Memory | 2 GB | 4 GB |
| Disk | 500 MB | 1 GB |

## Install

### macOS and Linux

~~~bash
curl -fsSL https://example.com/install.sh | sh
~~~

### Windows

~~~powershell
winget install Acme.Cli
~~~

### Docker

~~~bash
docker run --rm -it example/acme:latest --version
~~~

## Check the installation

~~~bash
acme --version
~~~

The command prints the installed version. If it does not, see [Troubleshooting](page:troubleshooting).

{% hint style="warning" %}
Pin a version in production and read the release notes before upgrading.
{% endhint %}
`;

const concepts = `---
description: The vocabulary and the model behind the product.
---

# Core concepts

Describe the few ideas a reader must understand to use the product well. One section per concept:
what it is, why it exists, and how it relates to the others.

## Projects

A project groups everything that belongs together: its sources, its settings and the people who
work on it.

## Sources

A source is where data comes from. A project can have several sources; each one is synchronized on
its own schedule.

## Roles and permissions

Who may read, edit or administer a project. List your roles from the most to the least powerful and
say what each one can do.

## Limits

State the limits people run into (sizes, rates, quotas) and what happens when they are reached.
`;

const troubleshooting = `---
description: Common problems and how to fix them.
---

# Troubleshooting

Start here when something does not work. Each entry gives the symptom, its usual cause and the fix.

## The command is not found after installing

**Cause**: the install directory is not on your \`PATH\`.

**Fix**: open a new terminal, or add the directory printed by the installer to your \`PATH\`.

## The source stays in the "pending" state

**Cause**: the credentials of the source are wrong or have expired.

**Fix**: open the source's settings, enter the credentials again, and choose **Test connection**.

## Still stuck?

Contact support at \`support@example.com\` with the version you run (\`acme --version\`), what you
did, what you expected and what happened instead.
`;

export const productDocs: SpaceTemplateDefinition = {
  id: 'product-docs',
  title: 'Product documentation',
  subtitle: 'An overview, a getting-started path, core concepts and troubleshooting for your product',
  emoji: '1f4d8',
  pages: [
    { key: 'overview', emoji: '1f44b', markdown: overview },
    {
      key: 'getting-started',
      emoji: '1f680',
      markdown: gettingStarted,
      pages: [
        { key: 'quickstart', markdown: quickstart },
        { key: 'installation', markdown: installation },
      ],
    },
    { key: 'concepts', emoji: '1f4a1', markdown: concepts },
    { key: 'troubleshooting', emoji: '1f527', markdown: troubleshooting },
  ],
};
