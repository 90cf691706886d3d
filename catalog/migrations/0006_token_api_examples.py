"""Two shipped example token API price rows, labelled as examples, for trying the comparison out."""
import datetime

from django.db import migrations

SOURCE_KEY = "example-token-api-prices"
EXAMPLES = [
    # provider, model, input, cached input, output (USD per million tokens)
    ("Example API", "large model", "3.0000", "0.3000", "15.0000"),
    ("Example API", "small model", "0.1500", "0.0750", "0.6000"),
]


def add_examples(apps, schema_editor):
    Source = apps.get_model("catalog", "Source")
    TokenApiPrice = apps.get_model("catalog", "TokenApiPrice")
    source, _ = Source.objects.get_or_create(
        key=SOURCE_KEY,
        defaults={"title": "Shipped examples of per-token API prices (illustrative, not quotes)",
                  "kind": "assumption", "published_on": datetime.date(2026, 11, 1),
                  "note": "Round figures in the range of 2026 list prices, to try the comparison "
                          "out; replace them with the prices your provider quotes."})
    for provider, model, price_in, cached, price_out in EXAMPLES:
        TokenApiPrice.objects.get_or_create(
            provider=provider, model_name=model, as_of=datetime.date(2026, 11, 1),
            defaults={"usd_per_million_input": price_in, "usd_per_million_cached_input": cached,
                      "usd_per_million_output": price_out, "source": source, "is_example": True,
                      "note": "Shipped example, not a real price list."})


def remove_examples(apps, schema_editor):
    apps.get_model("catalog", "TokenApiPrice").objects.filter(source__key=SOURCE_KEY).delete()
    apps.get_model("catalog", "Source").objects.filter(key=SOURCE_KEY).delete()


class Migration(migrations.Migration):
    dependencies = [("catalog", "0005_token_api_price")]
    operations = [migrations.RunPython(add_examples, remove_examples)]
