using Microsoft.EntityFrameworkCore.Migrations;

#nullable disable

namespace Api.Migrations.Postgres
{
    /// <inheritdoc />
    public partial class AddRequestId : Migration
    {
        /// <inheritdoc />
        protected override void Up(MigrationBuilder migrationBuilder)
        {
            migrationBuilder.AddColumn<string>(
                name: "RequestId",
                table: "Products",
                type: "character varying(64)",
                maxLength: 64,
                nullable: true);

            migrationBuilder.CreateIndex(
                name: "IX_Products_RequestId",
                table: "Products",
                column: "RequestId");
        }

        /// <inheritdoc />
        protected override void Down(MigrationBuilder migrationBuilder)
        {
            migrationBuilder.DropIndex(
                name: "IX_Products_RequestId",
                table: "Products");

            migrationBuilder.DropColumn(
                name: "RequestId",
                table: "Products");
        }
    }
}
