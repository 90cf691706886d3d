"""Alerts that reach people: price alerts, variance alerts and finished long jobs, sent by e-mail
and by signed webhooks to the subscriptions of a team or of one scenario."""
