# Help text only (no schema change): every job row's worker field is now declared once
# (core.jobs.RecoverableJob) and says "The worker running it."
from django.db import migrations
from django.db import models


class Migration(migrations.Migration):
    dependencies = [("reports", "0002_job_recovery")]

    operations = [
        migrations.AlterField(
            model_name="reportexport",
            name="worker",
            field=models.CharField(blank=True, help_text="The worker running it.", max_length=200),
        ),
    ]
