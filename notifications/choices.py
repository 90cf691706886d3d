from django.db import models


class Channel(models.TextChoices):
    EMAIL = "email", "E-mail"
    WEBHOOK = "webhook", "Webhook (signed JSON POST)"


class Event(models.TextChoices):
    PRICE_ALERT = "price_alert", "Price alert (a refresh moved a scenario's answer)"
    VARIANCE_ALERT = "variance_alert", "Variance alert (actual costs off the plan)"
    JOB_FINISHED = "job_finished", "A long job finished"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    DELIVERED = "delivered", "Delivered"
    FAILED = "failed", "Failed (gave up)"
