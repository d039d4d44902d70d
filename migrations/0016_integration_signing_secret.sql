-- The integration's own signing secret (GitBook's `environment.signingSecrets.integration`): AES-GCM ciphertext
-- under INTEGRATIONS_KEY, made at the first publish. Integrations published before this migration get theirs at
-- their next publish or delivery (services/integrations/delivery.ts): SQL cannot encrypt.
ALTER TABLE `integrations` ADD `signing_secret` text;
