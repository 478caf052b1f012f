import type { OutgoingPost } from './post-json.ts';
import type { NotificationMessage } from './notification.entity.ts';
import type { Channel } from '../model/notify.schemas.ts';
import { signedPost } from './signature.ts';

interface ChannelContext {
  /** The notification's id: `Neoflow-Delivery` of a webhook. */
  id: string;
  /** The value of the secret the channel names (a webhook's signing secret, a bot's token). */
  secret: string | undefined;
  /** Telegram's Bot API (NEOFLOW_TELEGRAM_API_URL). */
  telegramApiUrl: string;
}

/** The secret a channel needs, by name; Slack and Discord need none. */
export function channelSecret(channel: Channel): string | undefined {
  if (channel.type === 'webhook') return channel.signingSecret;
  if (channel.type === 'telegram') return channel.botTokenSecret;
  return undefined;
}

/** Slack reads `&`, `<` and `>` as markup: a name with them must not become a link or a mention. */
const slackText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The POST that tells `message` on `channel`: a signed JSON body for a webhook, each service's own
 * format for the others. Throws when the channel's secret is missing.
 */
export function channelRequest(channel: Channel, message: NotificationMessage, context: ChannelContext): OutgoingPost {
  const needsSecret = () => {
    if (context.secret === undefined) throw new Error(`The secret ${channelSecret(channel)} no longer exists.`);
    return context.secret;
  };
  switch (channel.type) {
    case 'webhook': {
      const body = JSON.stringify({ id: context.id, ...message });
      return signedPost(channel, context.id, body, needsSecret(), { 'Neoflow-Event': message.event });
    }
    case 'slack':
      return { url: channel.url, headers: {}, body: JSON.stringify({ text: slackText(message.text) }) };
    case 'discord':
      // No mention in a name may ping anyone.
      return {
        url: channel.url,
        headers: {},
        body: JSON.stringify({ content: message.text.slice(0, 2000), allowed_mentions: { parse: [] } }),
      };
    case 'telegram': {
      const url = `${context.telegramApiUrl.replace(/\/$/, '')}/bot${needsSecret()}/sendMessage`;
      return { url, headers: {}, body: JSON.stringify({ chat_id: channel.chatId, text: message.text.slice(0, 4096) }) };
    }
  }
}
