from django.db import migrations
from django.db import models


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0020_egress_rate'),
    ]

    operations = [
        migrations.AddField(
            model_name="throughputmeasurement",
            name="measured_on",
            field=models.DateField(blank=True, help_text="When the result was published: the row's own date, else its document's.", null=True),
        ),
        migrations.AlterField(
            model_name="throughputmeasurement",
            name="serving_software",
            field=models.CharField(blank=True, help_text="The software stack measured: serving engine and its version.", max_length=120),
        ),
    ]
