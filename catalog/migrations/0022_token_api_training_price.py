from django.db import migrations
from django.db import models

import catalog.validators


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0021_throughput_measurement_dates'),
    ]

    operations = [
        migrations.AddField(
            model_name="tokenapiprice",
            name="usd_per_million_training",
            field=models.DecimalField(blank=True, decimal_places=4, help_text="The provider's price to fine-tune the model it serves, per training token (tokens of the dataset x epochs); empty: it sells no fine-tuning, or no public price was found.", max_digits=12, null=True, validators=[catalog.validators.validate_not_negative], verbose_name="fine-tuning (USD per million training tokens)"),
        ),
    ]
