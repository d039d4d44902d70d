import { z } from '@hono/zod-openapi';

/**
 * GitBook's `RenderIntegrationUI` (what renderIntegrationUIWithPost takes, and renderIntegrationUIWithGet as its
 * LZ-string compressed `request`), `ContentKitContext` and `ContentKitRenderOutput` (what both answer). The
 * ContentKit element tree is the integration's own: it is handed back as its script answered it.
 */

/** How deeply `props`, `state` and `action` may nest, each (the object itself is level 1). */
export const MAX_RENDER_DEPTH = 20;
/** `props`, `state` and `action` together, as JSON. */
export const MAX_RENDER_INPUT_CHARS = 256 * 1024;
/** The largest `request` of renderIntegrationUIWithGet (compressed), and the largest JSON it may decompress to. */
export const MAX_RENDER_QUERY_CHARS = 8 * 1024;

const PlainObjectSchema = z.record(z.string(), z.unknown()).openapi('PlainObject');
const themed = { theme: z.enum(['dark', 'light']) };

export const ContentKitContextSchema = z
  .discriminatedUnion('type', [
    z.object({ ...themed, type: z.literal('configuration_account'), organizationId: z.string().min(1).max(128) }).openapi('ContentKitContextConfigurationAccount'),
    z.object({ ...themed, type: z.literal('configuration_space'), spaceId: z.string().min(1).max(128) }).openapi('ContentKitContextConfigurationSpace'),
    z.object({ ...themed, type: z.literal('configuration_site'), siteId: z.string().min(1).max(128) }).openapi('ContentKitContextConfigurationSite'),
    z
      .object({ ...themed, type: z.literal('configuration_contentsource'), organizationId: z.string().min(1).max(128), spaceId: z.string().min(1).max(128).optional() })
      .openapi('ContentKitContextConfigurationContentSource'),
    z.object({ ...themed, type: z.literal('document'), spaceId: z.string().min(1).max(128), editable: z.boolean() }).openapi('ContentKitContextDocument'),
  ])
  .openapi('ContentKitContext', {
    description:
      'Where the component is rendered. The configuration contexts (`configuration_account`, `configuration_space`, `configuration_site`) name the installation whose settings it shows; the others are refused here (400).',
  });
export type ContentKitContext = z.infer<typeof ContentKitContextSchema>;

export const ContentKitActionSchema = z
  .object({ action: z.string().min(1).max(200) })
  .catchall(z.unknown())
  .openapi('ContentKitAction', { description: "An action dispatched to the component (its `action` handler): the integration's own, or a `@ui.*` one" });

export const RenderIntegrationUISchema = z
  .object({
    componentId: z.string().min(1).max(100).openapi({ description: 'ID of the component to render in the integration.' }),
    props: PlainObjectSchema.openapi({ description: 'Current properties of the UI.' }),
    state: z.record(z.string(), z.unknown()).optional().openapi({ description: 'Current local state of the UI.' }),
    context: ContentKitContextSchema,
    action: ContentKitActionSchema.optional(),
  })
  .openapi('RenderIntegrationUI');
export type RenderIntegrationUI = z.infer<typeof RenderIntegrationUISchema>;

export const ContentKitRenderOutputSchema = z
  .union([
    z
      .object({
        type: z.literal('element').optional(),
        element: z.record(z.string(), z.unknown()).openapi({ description: "The ContentKit root element (the integration's own tree)" }),
        state: z.record(z.string(), z.unknown()),
        props: PlainObjectSchema,
        canAccessVisitorClaims: z.boolean().optional(),
      })
      .openapi('ContentKitRenderOutputElement', { description: 'Output of type element in the lifecycle of the component.' }),
    z
      .object({ type: z.literal('complete'), returnValue: z.record(z.string(), z.unknown()).optional() })
      .openapi('ContentKitRenderOutputComplete', { description: 'Output of completed lifecycle of the component.' }),
  ])
  .openapi('ContentKitRenderOutput', { description: 'Output of the integration when rendering a UI.' });
export type ContentKitRenderOutput = z.infer<typeof ContentKitRenderOutputSchema>;
