from django.db import migrations, models


class Migration(migrations.Migration):
    """Quote imports write in batches and count the rows written (core/file_imports.py)."""

    dependencies = [
        ('catalog', '0001_squashed_0018_rental_curve'),
    ]

    operations = [
        migrations.AddField(
            model_name='quoteimport',
            name='rows_written',
            field=models.PositiveIntegerField(default=0, help_text='Rows written so far, in batches that each commit on their own.'),
        ),
        migrations.AlterField(
            model_name='quoteimport',
            name='rows_total',
            field=models.PositiveIntegerField(blank=True, help_text='Rows in the file.', null=True),
        ),
    ]
