import type { Provider } from '../provider.js';
import { apnsProvider } from './apns.js';
import { fcmProvider } from './fcm.js';
import { incomingWebhookProvider } from './incoming-webhook.js';
import { slackProvider } from './slack.js';
import { smtpProvider } from './smtp.js';
import { twilioProvider } from './twilio.js';
import { vapidProvider } from './vapid.js';

/** The providers that deliver to outside services (docs/channels.md); the registry adds the generic `webhook`. */
export const deliveryProviders: readonly Provider[] = [
  smtpProvider,
  twilioProvider,
  vapidProvider,
  fcmProvider,
  apnsProvider,
  incomingWebhookProvider,
  slackProvider,
];
