/** Team chat: what other modules use (the event delivery job posts to subscribed channels). */
export { deliverChatEvent, type ChatDeliveryOutcome } from './deliver';
