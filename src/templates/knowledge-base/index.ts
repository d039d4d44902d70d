import type { SpaceTemplateDefinition } from '../types';

/** Knowledge base: answers for customers, grouped by topic, with troubleshooting and an FAQ. */

const welcome = `---
description: Find answers to common questions, or contact us.
---

# Welcome

This knowledge base answers the questions our customers ask most. Search it, or start from a topic:

- [Your account](page:account): sign-in, profile, security.
- [Billing and invoices](page:billing): plans, payments, invoices.
- [Troubleshooting](page:troubleshooting): when something does not work.
- [Frequently asked questions](page:faq): short answers to common questions.

## Contact support

Did not find your answer? Write to \`support@example.com\`. We answer within one business day.
`;

const account = `---
description: Sign-in, profile and security settings.
---

# Your account

## Reset your password

1. On the sign-in page, choose **Forgot password?**
2. Enter the email address of your account.
3. Open the link we send you (it is valid for one hour) and choose a new password.

## Turn on two-factor authentication

Go to **Settings → Security**, choose **Enable two-factor authentication**, and scan the code with
an authenticator app. Keep the recovery codes somewhere safe: they are the only way in if you lose
your phone.

## Change your email address

Go to **Settings → Profile** and enter the new address. We send a confirmation link to it; the
change applies once you open it.
`;

const billing = `---
description: Plans, payment methods and invoices.
---

# Billing and invoices

## Change your plan

Go to **Settings → Billing** and choose **Change plan**. An upgrade applies at once and is charged
pro rata; a downgrade applies at the end of the current billing period.

## Update your payment method

Go to **Settings → Billing → Payment method**. We accept major credit cards and, on yearly plans,
bank transfers.

## Download an invoice

Every invoice is listed under **Settings → Billing → Invoices**. Choose **Download** to get it as a
PDF. To add a VAT number or a billing address, edit **Billing details** before the next invoice is
issued.

{% hint style="info" %}
Only administrators of an organization can see and change its billing settings.
{% endhint %}
`;

const troubleshooting = `---
description: What to try when something does not work.
---

# Troubleshooting

## I cannot sign in

- Check that Caps Lock is off and that you use the email address of your account.
- Reset your password: see [Your account](page:account#reset-your-password).
- If your organization uses single sign-on, sign in from your company's portal instead.

## The page does not load or looks broken

1. Reload the page, bypassing the cache (**Ctrl+Shift+R**, or **Cmd+Shift+R** on a Mac).
2. Try a private window: if it works there, a browser extension is the likely cause.
3. Check our status page for an ongoing incident.

## I did not receive an email from us

Look in your spam folder, then add \`no-reply@example.com\` to your contacts and ask for the email
again.
`;

const faq = `---
description: Short answers to the questions we hear most.
---

# Frequently asked questions

## Is there a free plan?

Yes. The free plan includes one project and up to three members, with no time limit.

## Can I export my data?

Yes, at any time, from **Settings → Export**. Exports include everything you created, in CSV or
JSON.

## Where is my data stored?

In data centers in the European Union. See our security page for certifications and details.

## How do I cancel my subscription?

Go to **Settings → Billing** and choose **Cancel subscription**. You keep access until the end of
the period you paid for. See [Billing and invoices](page:billing) for details.
`;

export const knowledgeBase: SpaceTemplateDefinition = {
  id: 'knowledge-base',
  title: 'Knowledge base',
  subtitle: 'Answers for your customers: account, billing, troubleshooting and frequently asked questions',
  emoji: '1f4a1',
  pages: [
    { key: 'welcome', emoji: '1f44b', markdown: welcome },
    {
      key: 'account',
      emoji: '1f464',
      markdown: account,
      pages: [{ key: 'billing', emoji: '1f4b3', markdown: billing }],
    },
    { key: 'troubleshooting', emoji: '1f527', markdown: troubleshooting },
    { key: 'faq', emoji: '2753', markdown: faq },
  ],
};
