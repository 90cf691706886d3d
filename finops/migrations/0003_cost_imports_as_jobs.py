from django.db import migrations, models
from django.db.models import F

# The imports made inline before are done: their rows keep counting in the variance.
DONE = "done"


def rows_to_counts(apps, schema_editor):
    apps.get_model("finops", "CostImport").objects.update(
        rows_total=F("rows"), rows_checked=F("rows"), rows_written=F("rows"))


def counts_to_rows(apps, schema_editor):
    apps.get_model("finops", "CostImport").objects.update(rows=F("rows_written"))


class Migration(migrations.Migration):
    """FOCUS cost imports run as jobs that write in batches (finops/cost_imports.py)."""

    dependencies = [
        ('finops', '0002_currency_of_imports'),
    ]

    operations = [
        migrations.AddField(
            model_name='costimport',
            name='status',
            field=models.CharField(choices=[('pending', 'Queued'), ('running', 'Checking and writing'), ('done', 'Imported'), ('failed', 'Refused')], default=DONE, max_length=8),
        ),
        migrations.AlterField(
            model_name='costimport',
            name='status',
            field=models.CharField(choices=[('pending', 'Queued'), ('running', 'Checking and writing'), ('done', 'Imported'), ('failed', 'Refused')], default='pending', max_length=8),
        ),
        migrations.AddField(
            model_name='costimport',
            name='content',
            field=models.BinaryField(default=b'', help_text='The uploaded file, as received.'),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name='costimport',
            name='rows_total',
            field=models.PositiveIntegerField(blank=True, help_text='Rows in the file.', null=True),
        ),
        migrations.AddField(
            model_name='costimport',
            name='rows_checked',
            field=models.PositiveIntegerField(default=0, help_text='Rows checked so far.'),
        ),
        migrations.AddField(
            model_name='costimport',
            name='rows_written',
            field=models.PositiveIntegerField(default=0, help_text='Rows written so far, in batches that each commit on their own.'),
        ),
        migrations.RunPython(rows_to_counts, counts_to_rows),
        migrations.RemoveField(
            model_name='costimport',
            name='rows',
        ),
        migrations.AddField(
            model_name='costimport',
            name='errors',
            field=models.JSONField(blank=True, default=list, help_text='Each bad row: row, field and reason.'),
        ),
        migrations.AddField(
            model_name='costimport',
            name='error',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='costimport',
            name='attempts',
            field=models.PositiveSmallIntegerField(default=0, help_text='Times it was sent to a worker.'),
        ),
        migrations.AddField(
            model_name='costimport',
            name='queued_at',
            field=models.DateTimeField(blank=True, help_text='When it was last sent to a worker.', null=True),
        ),
        migrations.AddField(
            model_name='costimport',
            name='worker',
            field=models.CharField(blank=True, help_text='The worker running it.', max_length=200),
        ),
        migrations.AddField(
            model_name='costimport',
            name='task_id',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name='costimport',
            name='started_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='costimport',
            name='finished_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddConstraint(
            model_name='costimport',
            constraint=models.CheckConstraint(condition=models.Q(('status__in', ['pending', 'running', 'done', 'failed'])), name='finops_cost_import_status_known'),
        ),
    ]
